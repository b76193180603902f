/**
 * Sensitive tool arguments and results: what a tool declares (`defineTool({sensitive})`,
 * `mcpServer({sensitive})`), how the team snapshot records it (`AgentSpec.toolSensitivity`), and
 * the redaction baton applies wherever it shows a tool call: the audit (JSON, timeline, Mermaid,
 * HTTP), run events, the CLI, the HTTP service and its approvals page (an approver who may decide
 * the call sees its real arguments), and the errors a sensitive tool throws (so worker logs do not
 * carry the values). Metrics and spans never carry argument or result values. A declaration is
 * checked in `sensitivityChecks.ts`.
 *
 * Redaction is of what baton shows, not of what it records: the model still gets the real values
 * (it needs them), and the workflow history holds them, because a run replays from it. Encrypt
 * history at rest with the AES-GCM payload codec (`createWorker({codec: {encryptionKeys}})`, or
 * `BATON_ENCRYPTION_KEYS`), so only holders of a key read them there. The `status`, `chain` and
 * `pendingApprovals` queries answer with the workflow's own values, unredacted.
 *
 * Workflow-safe: no I/O.
 */
import type { ApprovalRecord, PendingApproval } from './approvals';
import { isRecord } from './check';
import { LIMITS } from './limits';
import type { ChatMessage, ToolCall } from './model';
import type { ToolSensitivitySpec } from './sensitivity';
import type { TeamSpec } from './team';

export type { ToolSensitivitySpec } from './sensitivity';

/** What a redacted value shows instead. */
export const REDACTED = '[redacted]';

/**
 * Whether a tool call's sensitive arguments are shown as they are (`revealed`) or as
 * `"[redacted]"`, and which: what `baton.pending()` and run events attach to a tool call waiting
 * for approval whose tool declares sensitive arguments.
 */
export interface SensitiveArguments {
  /** The paths declared sensitive; `true` for every argument. */
  arguments: true | string[];
  /** `true` when `tool.arguments` holds the real values (the viewer may decide the call). */
  revealed: boolean;
}

/** Values shorter than this are not searched for in free text (an error message): they would match everywhere. */
export const MIN_SCRUBBED_LENGTH = 4;

/** `value` with the values at `paths` (`true`: every field of an object, or the whole value) replaced by {@link REDACTED}. */
export function redactValue(value: unknown, paths: true | string[]): unknown {
  if (paths === true)
    return isRecord(value) ? Object.fromEntries(Object.keys(value).map((k) => [k, REDACTED])) : REDACTED;
  let out = value;
  for (const path of paths) out = redactAt(out, path.split('.'));
  return out;
}

/** Lists in lists a path is followed through: past it, what the path names cannot be told apart from the rest, so all of it is redacted. */
const MAX_LIST_NESTING = LIMITS.jsonDepth;

function redactAt(value: unknown, parts: string[], lists = 0): unknown {
  if (parts.length === 0) return REDACTED;
  if (Array.isArray(value))
    return lists >= MAX_LIST_NESTING ? REDACTED : value.map((item) => redactAt(item, parts, lists + 1));
  if (!isRecord(value)) return value;
  const [head, ...rest] = parts as [string, ...string[]];
  if (!Object.hasOwn(value, head)) return value;
  return { ...value, [head]: redactAt(value[head], rest) };
}

/** The values at `paths` (`true`: all of them), as the text they would appear as in a message. */
function valuesAt(value: unknown, paths: true | string[]): string[] {
  const found: unknown[] = [];
  const walk = (v: unknown, parts: string[], lists = 0): void => {
    if (parts.length === 0 || (Array.isArray(v) && lists >= MAX_LIST_NESTING)) return void found.push(v);
    if (Array.isArray(v)) return v.forEach((item) => walk(item, parts, lists + 1));
    if (isRecord(v) && Object.hasOwn(v, parts[0]!)) walk(v[parts[0]!], parts.slice(1));
  };
  if (paths === true) found.push(value);
  else for (const path of paths) walk(value, path.split('.'));
  // Every string and number inside, at any depth (a stack, not recursion).
  const texts: string[] = [];
  while (found.length > 0) {
    const v = found.pop();
    if (typeof v === 'string') texts.push(v, JSON.stringify(v).slice(1, -1));
    else if (typeof v === 'number' || typeof v === 'bigint') texts.push(String(v));
    else if (Array.isArray(v) || isRecord(v)) for (const inner of Object.values(v)) found.push(inner);
  }
  return texts;
}

function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/**
 * A call's arguments (JSON text) with the sensitive ones redacted; as they are when nothing is
 * sensitive. Arguments that are not a JSON object are redacted whole: their fields cannot be told apart.
 */
export function redactArguments(text: string, spec: ToolSensitivitySpec | undefined): string {
  if (!spec?.arguments) return text;
  const parsed = parseJson(text || '{}');
  if (!parsed || !isRecord(parsed.value)) return REDACTED;
  return written(redactValue(parsed.value, spec.arguments));
}

/** A redacted value as JSON; one nested too deep to write is redacted whole. */
function written(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return REDACTED;
  }
}

/**
 * A tool's answer with its sensitive parts redacted, and any sensitive argument value it repeats.
 * `ok: false` marks an error (invalid arguments, a `ToolError`): it is not the tool's result, so only
 * argument values are taken out of it.
 */
export function redactResult(
  text: string,
  spec: ToolSensitivitySpec | undefined,
  argumentsText?: string,
  ok?: boolean,
): string {
  if (!spec) return text;
  let out = text;
  if (spec.result && ok !== false) {
    const parsed = spec.result === true ? undefined : parseJson(text);
    out =
      spec.result === true || !parsed || (!isRecord(parsed.value) && !Array.isArray(parsed.value))
        ? REDACTED
        : written(redactValue(parsed.value, spec.result));
  }
  return argumentsText === undefined ? out : scrub(out, sensitiveValues(argumentsText, spec));
}

/**
 * The sensitive argument values of a call, as they may appear in free text (an error message):
 * the values at the sensitive paths, or the whole text when it is not a JSON object.
 */
export function sensitiveValues(argumentsText: string, spec: ToolSensitivitySpec | undefined): string[] {
  if (!spec?.arguments) return [];
  const parsed = parseJson(argumentsText || '{}');
  if (!parsed || !isRecord(parsed.value)) return [argumentsText];
  return valuesAt(parsed.value, spec.arguments);
}

/** `text` with every occurrence of `values` (those of at least {@link MIN_SCRUBBED_LENGTH} characters) replaced by {@link REDACTED}. */
export function scrub(text: string, values: readonly string[]): string {
  const long = [...new Set(values)]
    .filter((v) => v.length >= MIN_SCRUBBED_LENGTH && v !== REDACTED)
    .sort((a, b) => b.length - a.length);
  let out = text;
  for (const v of long) out = out.split(v).join(REDACTED);
  return out;
}

/** The sensitivity of each agent's tools in a team snapshot, and the redactions that follow from it. */
export class TeamRedaction {
  constructor(readonly team: TeamSpec | undefined) {}

  /** Whether any tool of the team declares something sensitive. */
  get any(): boolean {
    return Object.values(this.team?.agents ?? {}).some(
      (a) => a.toolSensitivity && Object.keys(a.toolSensitivity).length > 0,
    );
  }

  /** What is sensitive about agent `agent`'s tool `tool`; `undefined` when nothing is. */
  of(agent: string | undefined, tool: string | undefined): ToolSensitivitySpec | undefined {
    if (tool === undefined) return undefined;
    if (agent !== undefined) return this.team?.agents[agent]?.toolSensitivity?.[tool];
    // Who called is unknown (a decision names only the tool): any agent's tool of that name.
    return Object.values(this.team?.agents ?? {}).find((a) => a.toolSensitivity?.[tool])?.toolSensitivity?.[tool];
  }

  /** A call of `agent`'s tool (any agent's, when `undefined`) with its arguments redacted. */
  call(agent: string | undefined, call: ToolCall): ToolCall {
    const spec = this.of(agent, call.name);
    return spec?.arguments ? { ...call, arguments: redactArguments(call.arguments, spec) } : call;
  }

  /** A conversation of `agent` with its sensitive tool arguments and results redacted (tool answers found by call id, else by position). */
  messages(agent: string, messages: ChatMessage[]): ChatMessage[] {
    if (!this.any) return messages;
    let open: ToolCall[] = [];
    let answered = 0;
    return messages.map((m) => {
      if (m.role === 'assistant') {
        open = m.toolCalls ?? [];
        answered = 0;
        // A conversation carried from an earlier agent holds that agent's calls: a tool of any agent by that name counts.
        return m.toolCalls
          ? { ...m, toolCalls: m.toolCalls.map((c) => this.call(this.of(agent, c.name) ? agent : undefined, c)) }
          : m;
      }
      if (m.role !== 'tool') return m;
      const byId = m.toolCallId ? open.filter((c) => c.id === m.toolCallId) : [];
      const call = byId.length === 1 ? byId[0] : open[answered];
      answered += 1;
      const spec = this.of(agent, call?.name) ?? this.of(undefined, call?.name);
      return spec ? { ...m, content: redactResult(m.content, spec, call?.arguments) } : m;
    });
  }
}

/**
 * A tool call waiting for approval with its sensitive arguments redacted, in `tool.arguments` and
 * in the `message` that repeats them.
 */
export function redactPendingApproval<P extends PendingApproval>(p: P, spec: ToolSensitivitySpec | undefined): P {
  if (!p.tool || !spec?.arguments) return p;
  const raw = p.tool.arguments;
  const redacted = redactArguments(raw, spec);
  const values = sensitiveValues(raw, spec);
  const message = scrub(raw ? p.message.split(raw).join(redacted) : p.message, values);
  return { ...p, message, tool: { ...p.tool, arguments: redacted } };
}

/** A decision with the sensitive fields of its edited arguments redacted. */
export function redactDecisionRecord<R extends Pick<ApprovalRecord, 'editedArguments'>>(
  record: R,
  spec: ToolSensitivitySpec | undefined,
): R {
  if (record.editedArguments === undefined || !spec?.arguments) return record;
  return { ...record, editedArguments: redactArguments(record.editedArguments, spec) };
}
