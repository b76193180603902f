/**
 * Personal data in what leaves for the archive and the SIEM: the fields a team names are dropped,
 * or replaced by a keyed hash (HMAC-SHA-256 under a key the team keeps, so equal values still match
 * across chains while nobody without the key can test a guess), wherever tool arguments and
 * results, approvals of tool calls, approvers' edits and the run's context hold them. Secrets are
 * redacted before this by the team's `sensitive` declarations (`src/audit/redact.ts`).
 *
 * Free text (a user's message, a model's answer) is not searched: a chain whose text holds
 * personal data is erased for its data subject as a whole (`./erase.ts`).
 */
import { createHmac } from 'node:crypto';
import { isRecord } from '../../common/check';
import type { AgentSpec } from '../../common/team';
import type { AuditChain, AuditEvent } from '../types';

/** Which fields are personal data, and what becomes of them. */
export interface PersonalDataRules {
  /** Field names (`email`) or dotted paths (`customer.email`), matched at any depth of a JSON value. */
  fields: string[];
  /** `drop`: the field is removed; `hash`: its value becomes `"hmac-sha256:<hex>"`. @default "hash" */
  mode?: 'drop' | 'hash';
  /** The HMAC key for `hash` (at least 16 bytes); required for it. */
  hashKey?: string | Uint8Array;
}

/** Problems with `rules`, each naming the field and what would be valid. */
export function personalDataProblems(rules: PersonalDataRules): string[] {
  const problems: string[] = [];
  if (
    !Array.isArray(rules.fields) ||
    rules.fields.length === 0 ||
    rules.fields.some((f) => typeof f !== 'string' || !/^[^.\s]+(\.[^.\s]+)*$/.test(f))
  ) {
    problems.push(
      `personalData.fields must be a non-empty list of field names or dotted paths like ["email", "customer.name"], got ${JSON.stringify(rules.fields)}`,
    );
  }
  const mode = rules.mode ?? 'hash';
  if (mode !== 'drop' && mode !== 'hash')
    problems.push(`personalData.mode must be "drop" or "hash", got ${JSON.stringify(rules.mode)}`);
  if (
    mode === 'hash' &&
    (rules.hashKey === undefined ||
      (typeof rules.hashKey === 'string' ? Buffer.byteLength(rules.hashKey) : rules.hashKey.length) < 16)
  ) {
    problems.push(
      'personalData.hashKey must be a key of at least 16 bytes for mode "hash" (a plain hash of an e-mail address can be guessed back); or use mode "drop"',
    );
  }
  return problems;
}

/**
 * `chain` (and its specialists) with the personal data fields dropped or hashed, in place. The
 * tools whose arguments or results changed are marked sensitive in the chain's team snapshot, so
 * the export says their edited arguments cannot be checked against their signed digest.
 */
export function applyPersonalData(chain: AuditChain, rules: PersonalDataRules): AuditChain {
  const paths = rules.fields.map((f) => f.split('.'));
  const hash = (v: unknown) =>
    `hmac-sha256:${createHmac('sha256', rules.hashKey ?? '')
      .update(JSON.stringify(v))
      .digest('hex')}`;
  const scrub = (value: unknown): { value: unknown; changed: boolean } => {
    let changed = false;
    const walk = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.map(walk);
      if (!isRecord(v)) return v;
      const out: Record<string, unknown> = {};
      for (const [k, inner] of Object.entries(v)) {
        const hit = paths.some((p) => p.length === 1 && p[0] === k);
        if (hit) {
          changed = true;
          if (rules.mode !== 'drop') out[k] = hash(inner);
          continue;
        }
        out[k] = walk(inner);
      }
      return applyDotted(out);
    };
    // Dotted paths are matched where their first field is.
    const applyDotted = (o: Record<string, unknown>): Record<string, unknown> => {
      for (const p of paths.filter((q) => q.length > 1)) {
        if (dropAt(o, p, rules.mode === 'drop' ? undefined : hash)) changed = true;
      }
      return o;
    };
    return { value: walk(value), changed };
  };
  const text = (json: string | undefined) => {
    if (json === undefined) return { value: json, changed: false };
    try {
      const r = scrub(JSON.parse(json));
      return r.changed ? { value: JSON.stringify(r.value), changed: true } : { value: json, changed: false };
    } catch {
      return { value: json, changed: false };
    }
  };
  const touched = new Map<string, { arguments?: boolean; result?: boolean }>();
  const mark = (agent: string, tool: string, part: 'arguments' | 'result') =>
    touched.set(`${agent}/${tool}`, { ...touched.get(`${agent}/${tool}`), [part]: true });
  const approvals = new Map<string, { from: string; tool: string }>();
  const visit = (c: AuditChain) => {
    for (const e of c.events) scrubEvent(e, text, scrub, mark, approvals);
    if (c.input?.context) c.input = { ...c.input, context: scrub(c.input.context).value as never };
    if (c.team) c.team = withSensitive(c.team, touched);
    for (const child of c.children ?? []) visit(child);
  };
  visit(chain);
  return chain;
}

type TextScrub = (json: string | undefined) => { value: string | undefined; changed: boolean };
type ValueScrub = (value: unknown) => { value: unknown; changed: boolean };

function scrubEvent(
  e: AuditEvent,
  text: TextScrub,
  scrub: ValueScrub,
  mark: (agent: string, tool: string, part: 'arguments' | 'result') => void,
  approvals: Map<string, { from: string; tool: string }>,
): void {
  switch (e.kind) {
    case 'run_started':
      if (e.input.context) e.input = { ...e.input, context: scrub(e.input.context).value as never };
      return;
    case 'model_turn':
      e.toolCalls = e.toolCalls?.map((c) => {
        const r = text(c.arguments);
        if (r.changed) mark(e.agent, c.name, 'arguments');
        return { ...c, arguments: r.value! };
      });
      return;
    case 'tool_call': {
      for (const field of ['arguments', 'requestedArguments'] as const) {
        const r = text(e[field]);
        if (r.changed) {
          e[field] = r.value!;
          mark(e.agent, e.tool, 'arguments');
        }
      }
      const r = text(e.result);
      if (r.changed) {
        e.result = r.value;
        mark(e.agent, e.tool, 'result');
      }
      return;
    }
    case 'approval_requested': {
      if (!e.tool) return;
      approvals.set(e.handoffId, { from: e.from, tool: e.tool.name });
      const r = text(e.tool.arguments);
      if (r.changed) {
        e.tool = { ...e.tool, arguments: r.value! };
        mark(e.from, e.tool.name, 'arguments');
      }
      return;
    }
    case 'approval_decided': {
      const asked = approvals.get(e.handoffId);
      const r = text(e.editedArguments);
      if (r.changed && asked) {
        e.editedArguments = r.value;
        mark(asked.from, asked.tool, 'arguments');
      }
      return;
    }
    case 'update':
    case 'signal': {
      const r = scrub(e.input);
      if (r.changed) e.input = r.value;
      return;
    }
    default:
      return;
  }
}

/** Drop (or hash) the value at `path` inside `o`, where it is; whether it was there. */
function dropAt(o: Record<string, unknown>, path: string[], hash: ((v: unknown) => string) | undefined): boolean {
  const [head, ...rest] = path as [string, ...string[]];
  if (!(head in o)) return false;
  if (rest.length === 0) {
    if (hash) o[head] = hash(o[head]);
    else delete o[head];
    return true;
  }
  const inner = o[head];
  if (Array.isArray(inner)) return inner.map((item) => isRecord(item) && dropAt(item, rest, hash)).some(Boolean);
  return isRecord(inner) ? dropAt(inner, rest, hash) : false;
}

/** The snapshot with the tools whose calls lost personal data marked sensitive, as the export's header reads them. */
function withSensitive<T extends { agents: Record<string, AgentSpec> }>(
  team: T,
  touched: Map<string, { arguments?: boolean; result?: boolean }>,
): T {
  if (touched.size === 0) return team;
  const agents = { ...team.agents };
  for (const [name, parts] of touched) {
    const [agentId, ...toolParts] = name.split('/');
    const agent = agents[agentId!];
    if (!agent) continue;
    const tool = toolParts.join('/');
    const before = agent.toolSensitivity?.[tool] ?? {};
    const after = {
      ...before,
      ...(parts.arguments && before.arguments === undefined ? { arguments: true as const } : {}),
      ...(parts.result && before.result === undefined ? { result: true as const } : {}),
    };
    agents[agentId!] = { ...agent, toolSensitivity: { ...agent.toolSensitivity, [tool]: after } };
  }
  return { ...team, agents };
}
