/**
 * The handoff tool's wire format, and reading it back from a model's tool call.
 * Workflow-safe: the workflow parses handoff calls itself, with no activity.
 */
import type { ToolCall } from './model';
import type { AgentSpec, StateUpdate } from './team';
import { shapeOver } from './jsonShape';
import { sizeMessage } from './limits';

/** Name of the tool injected into every agent of a team of two or more. */
export const HANDOFF_TOOL_NAME = 'handoff';

/** The built-in tool that reads the run's shared state (teams with `sharedState`). */
export const READ_STATE_TOOL_NAME = 'readState';

/** Prefix of the per-target handoff tools' default names: `transfer_to_<id>`. */
export const TRANSFER_TOOL_PREFIX = 'transfer_to_';

/** A handoff the model asked for. */
export interface HandoffResult {
  kind: 'handoff';
  from: string;
  to: string;
  message: string;
  /** The handoff's typed input as the model gave it (checked against the target's `inputType` in the model activity). */
  input?: unknown;
  /** The state update the call carries (teams with `sharedState`). */
  update?: StateUpdate;
  /** Set when capability routing chose the target (`handoff_to_specialist`). */
  via?: 'specialist';
}

/** Type guard for {@link HandoffResult}. */
export function isHandoffResult(value: unknown): value is HandoffResult {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    v.kind === 'handoff' && typeof v.from === 'string' && typeof v.to === 'string' && typeof v.message === 'string'
  );
}

/** Whether a tool call is a call of one of `agent`'s handoff tools (the `handoff` tool, or a per-target tool). */
export function isHandoffCall(call: ToolCall, agent?: Pick<AgentSpec, 'handoffToolTargets'>): boolean {
  return call.name === HANDOFF_TOOL_NAME || agent?.handoffToolTargets?.[call.name] !== undefined;
}

/**
 * Read a handoff from a tool call of agent `from`: a {@link HandoffResult}, or a string saying what is
 * wrong with the arguments (sent back to the model as the tool's result). `null` when the call is not
 * a handoff call. With `maxDepth`, arguments nested deeper are wrong too: their `input` and
 * `update` are kept in the chain's state and records.
 */
export function extractHandoff(
  call: ToolCall,
  from: string,
  agent?: Pick<AgentSpec, 'handoffToolTargets'>,
  maxDepth?: number,
): HandoffResult | string | null {
  if (!isHandoffCall(call, agent)) return null;
  const fixed = call.name === HANDOFF_TOOL_NAME ? undefined : agent?.handoffToolTargets?.[call.name];
  const expected = fixed === undefined ? '{"to": string, "message": string}' : '{"message": string}';
  let args: unknown;
  try {
    args = JSON.parse(call.arguments || '{}');
  } catch {
    return `Invalid arguments for ${call.name}: not valid JSON. Expected ${expected}.`;
  }
  const [deep] =
    maxDepth === undefined ? [] : shapeOver('arguments', args, { depth: maxDepth, entries: Number.POSITIVE_INFINITY });
  if (deep) return `Invalid arguments for ${call.name}: ${sizeMessage(deep)}. Expected ${expected}.`;
  const a = (typeof args === 'object' && args !== null ? args : {}) as Record<string, unknown>;
  const to = fixed ?? a.to;
  if (typeof to !== 'string' || to.length === 0 || typeof a.message !== 'string') {
    return `Invalid arguments for ${call.name}: expected ${expected}, got ${call.arguments}`;
  }
  const update = a.update === undefined || a.update === null ? undefined : readUpdate(a.update);
  if (typeof update === 'string') return `Invalid arguments for ${call.name}: ${update}`;
  return {
    kind: 'handoff',
    from,
    to,
    message: a.message,
    ...(a.input !== undefined ? { input: a.input } : {}),
    ...(update ? { update } : {}),
  };
}

function readUpdate(value: unknown): StateUpdate | string {
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObject(value)) return '"update" must be an object {context?, artifacts?, workflowState?}';
  const extra = Object.keys(value).filter((k) => !['context', 'artifacts', 'workflowState'].includes(k));
  if (extra.length > 0)
    return `"update" has unknown field(s) ${extra.join(', ')} (valid: context, artifacts, workflowState)`;
  if (value.context !== undefined && !isObject(value.context)) return '"update.context" must be an object';
  if (value.workflowState !== undefined && !isObject(value.workflowState))
    return '"update.workflowState" must be an object';
  if (value.artifacts !== undefined && !Array.isArray(value.artifacts)) return '"update.artifacts" must be a list';
  return value as StateUpdate;
}
