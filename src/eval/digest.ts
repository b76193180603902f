/**
 * When two steps are the same step: a canonical digest of what a model or a tool is given. A
 * candidate's model call whose digest a recorded call has reuses that call's answer; the parts'
 * digests say what differs when none has it.
 */
import { createHash } from 'node:crypto';
import type { CallModelInput, ChatMessage, ModelSpec, RouteSpecialistInput, SummarizeInput } from '../common/model';
import { ActivityType } from '../common/messages';
import type { RunToolInput } from '../common/team';
import { sortedJson } from '../common/signatures/canonical';

/** JSON with object keys sorted, so equal values have equal text whatever their key order (without recursion: any depth). */
export const canonicalJson: (value: unknown) => string = sortedJson;

/** A short digest of a value's canonical JSON. */
export function digest(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 24);
}

/**
 * What decides a model's answer: the agent and its n-th call, the model and its settings, the
 * conversation, the tools with their descriptions and schemas, the structured output's schema and
 * why it is called. Not the team need or a lost worker's restart, which only route the call.
 */
export function modelCallKey(input: CallModelInput): string {
  const { team: _team, lostWorker: _restart, ...call } = input;
  return `${ActivityType.CALL_MODEL}:${digest(call)}`;
}

/** A tool call as the same call: the agent, the tool and its arguments as a value (key order and spacing aside). */
export function toolCallKey(input: Pick<RunToolInput, 'agentId' | 'call'>): string {
  return `${ActivityType.RUN_TOOL}:${digest({ agent: input.agentId, tool: input.call.name, arguments: argumentsValue(input.call.arguments) })}`;
}

/** The key of an activity's input for reuse: model calls, tool calls, summaries and routing; `undefined` for the rest. */
export function activityKey(type: string, input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  if (type === ActivityType.CALL_MODEL || type === ActivityType.CALL_MODEL_LOCAL)
    return modelCallKey(input as CallModelInput);
  if (type === ActivityType.RUN_TOOL) return toolCallKey(input as RunToolInput);
  if (type === ActivityType.SUMMARIZE_HANDOFF || type === ActivityType.ROUTE_SPECIALIST) {
    const { team: _team, lostWorker: _restart, ...rest } = input as SummarizeInput | RouteSpecialistInput;
    return `${type}:${digest(rest)}`;
  }
  return undefined;
}

function argumentsValue(text: string): unknown {
  try {
    return JSON.parse(text.trim() || '{}');
  } catch {
    return text;
  }
}

/** What a model call's input is made of, each part as a digest, for saying what differs between two. */
export interface RequestParts {
  agent: string;
  callIndex: number;
  purpose?: string;
  model: { provider: string; name: string; digest: string };
  instructions: string;
  /** Each message after the system messages: its role, the tool it answers, and its digest. */
  messages: { role: ChatMessage['role']; tool?: string; digest: string }[];
  /** Each tool by name: the digests of its description and of its parameters. */
  tools: Record<string, { description: string; parameters: string }>;
  outputSchema?: string;
}

/** The parts of a model call's input. */
export function requestParts(input: CallModelInput): RequestParts {
  const system = input.messages.filter((m) => m.role === 'system');
  const rest = input.messages.filter((m) => m.role !== 'system');
  const toolNames = new Map<string, string>();
  for (const m of input.messages)
    if (m.role === 'assistant') for (const c of m.toolCalls ?? []) toolNames.set(c.id, c.name);
  return {
    agent: input.agentId,
    callIndex: input.callIndex,
    ...(input.purpose ? { purpose: input.purpose } : {}),
    model: modelPart(input.model),
    instructions: digest(system.map((m) => m.content)),
    messages: rest.map((m) => ({
      role: m.role,
      ...(m.role === 'tool' && toolNames.has(m.toolCallId) ? { tool: toolNames.get(m.toolCallId)! } : {}),
      digest: digest(m),
    })),
    tools: Object.fromEntries(
      input.tools.map((t) => [t.name, { description: digest(t.description), parameters: digest(t.parameters) }]),
    ),
    ...(input.outputSchema ? { outputSchema: digest(input.outputSchema) } : {}),
  };
}

function modelPart(model: ModelSpec): RequestParts['model'] {
  return { provider: model.provider, name: model.model, digest: digest(model) };
}

/**
 * What differs from `recorded` in `candidate`, in words: the model, the instructions, each tool
 * added, removed or changed, the first message that differs, the structured output's schema.
 */
export function partsThatDiffer(candidate: RequestParts, recorded: RequestParts): string[] {
  const why: string[] = [];
  if (candidate.model.digest !== recorded.model.digest) {
    const same = candidate.model.provider === recorded.model.provider && candidate.model.name === recorded.model.name;
    why.push(
      same
        ? `model settings of ${candidate.model.name}`
        : `model (${recorded.model.provider}/${recorded.model.name} → ${candidate.model.provider}/${candidate.model.name})`,
    );
  }
  if (candidate.instructions !== recorded.instructions) why.push('instructions');
  for (const [name, t] of Object.entries(candidate.tools)) {
    const r = recorded.tools[name];
    if (!r) why.push(`tools: ${name} added`);
    else if (r.description !== t.description && r.parameters !== t.parameters)
      why.push(`tools: ${name} (description and parameters)`);
    else if (r.description !== t.description) why.push(`tools: ${name} (description)`);
    else if (r.parameters !== t.parameters) why.push(`tools: ${name} (parameters)`);
  }
  for (const name of Object.keys(recorded.tools)) if (!candidate.tools[name]) why.push(`tools: ${name} removed`);
  const first = candidate.messages.findIndex((m, i) => recorded.messages[i]?.digest !== m.digest);
  if (first >= 0) why.push(messageWords(candidate.messages[first]!, first, 'differs'));
  else if (recorded.messages.length > candidate.messages.length)
    why.push(`messages: the record had ${recorded.messages.length - candidate.messages.length} more`);
  if (candidate.outputSchema !== recorded.outputSchema) why.push('output schema');
  return why;
}

function messageWords(m: RequestParts['messages'][number], index: number, what: string): string {
  const role =
    m.role === 'tool'
      ? `answer of ${m.tool ?? 'a tool call'}`
      : m.role === 'user'
        ? index === 0
          ? 'its input (the request or the handoff message)'
          : 'user message'
        : 'its own earlier answer';
  return `message ${index + 1} ${what} (${role})`;
}
