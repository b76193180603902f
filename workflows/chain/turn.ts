/**
 * One model turn's tool calls: what runs, which handoff counts, and how the turn closes with
 * every call answered in the model's order.
 *
 * Pure: no Temporal API, no I/O.
 */
import {
  DELEGATE_TOOL_NAME,
  SPECIALIST_DELEGATE_TOOL_NAME,
  SPECIALIST_HANDOFF_TOOL_NAME,
} from '../../src/common/delegation';
import { isHandoffCall, READ_STATE_TOOL_NAME } from '../../src/common/handoff';
import type { ToolCall } from '../../src/common/model';
import type { ToolResultRecord } from '../../src/common/run';
import type { AgentSpec } from '../../src/common/team';
import { sortedJson } from '../../src/common/signatures/canonical';

/**
 * What a model turn's tool calls mean, under baton's one-handoff-per-turn rule:
 * every regular tool call runs (before the handoff, results kept); the first handoff call wins;
 * each later handoff call is answered with a tool result saying it was ignored, so no call is left
 * without an answer.
 */
export interface TurnPlan {
  tools: ToolCall[];
  handoff?: ToolCall;
  ignoredHandoffs: ToolCall[];
  /** Tasks for specialists: every `delegate` (and `delegate_to_specialist`) call of the turn, run before the handoff. */
  delegations: ToolCall[];
}

export function planTurn(
  calls: ToolCall[],
  agent?: Pick<AgentSpec, 'handoffToolTargets' | 'delegateTool' | 'routing'>,
): TurnPlan {
  const tools: ToolCall[] = [];
  const ignoredHandoffs: ToolCall[] = [];
  const delegations: ToolCall[] = [];
  let handoff: ToolCall | undefined;
  for (const call of calls) {
    if (isDelegationCall(call, agent)) delegations.push(call);
    else if (
      !isHandoffCall(call, agent) &&
      !(agent?.routing === 'transfer' && call.name === SPECIALIST_HANDOFF_TOOL_NAME)
    )
      tools.push(call);
    else if (handoff) ignoredHandoffs.push(call);
    else handoff = call;
  }
  return { tools, ...(handoff ? { handoff } : {}), ignoredHandoffs, delegations };
}

/** Whether a call hands a task to a specialist who answers back. */
function isDelegationCall(call: ToolCall, agent: Pick<AgentSpec, 'delegateTool' | 'routing'> | undefined): boolean {
  return (
    (call.name === DELEGATE_TOOL_NAME && agent?.delegateTool !== undefined) ||
    (call.name === SPECIALIST_DELEGATE_TOOL_NAME && agent?.routing === 'delegate')
  );
}

/**
 * Every call's answer, in the order the model made the calls: OpenAI-compatible servers reject a
 * conversation with an unanswered tool call.
 */
export function answersInOrder(calls: ToolCall[], results: Map<string, string>): ToolResultRecord[] {
  return calls.map((call) => ({ toolCallId: call.id, name: call.name, content: results.get(call.id) ?? '' }));
}

/** The names of every tool the agent can call, its handoff tools and `readState` included. */
export function toolNames(agent: AgentSpec, sharedState = false): string[] {
  return [
    ...agent.tools.map((t) => t.name),
    ...(agent.handoffTool ? [agent.handoffTool.name] : []),
    ...(agent.handoffTools ?? []).map((t) => t.name),
    ...(agent.delegateTool ? [agent.delegateTool.name] : []),
    ...(agent.routing
      ? [agent.routing === 'transfer' ? SPECIALIST_HANDOFF_TOOL_NAME : SPECIALIST_DELEGATE_TOOL_NAME]
      : []),
    ...(sharedState ? [READ_STATE_TOOL_NAME] : []),
  ];
}

/**
 * The idempotency key of a tool call: the same for every retry of the call (after a worker crash,
 * and after a replay that runs the same answer again), different for any two different calls. It is
 * built from workflow-deterministic values only, never from the provider's tool-call id, which can
 * be empty or repeated.
 */
export function idempotencyKey(
  workflowId: string,
  agentId: string,
  turn: number,
  index: number,
  call: ToolCall,
): string {
  return `${workflowId}:${agentId}:${turn}.${index + 1}:${fnv1a(`${call.name}\n${call.arguments}`)}`;
}

/** Where `decidedCalls` keeps the decision on a turn's handoff call (tool calls' are under their ids). */
export function carriedHandoffKey(call: Pick<ToolCall, 'id'>): string {
  return `handoff:${call.id}`;
}

/** The hash a tool approval binds to: the tool's name and its arguments as the model wrote them. */
export function callHash(call: Pick<ToolCall, 'name' | 'arguments'>): string {
  return fnv1a(`${call.name}\n${call.arguments}`);
}

/**
 * What makes two tool calls the same call: the tool and its arguments as a value (key order and
 * spacing aside; arguments that are not JSON as written). Short, so a chain can keep one per approval.
 */
export function toolCallKey(call: Pick<ToolCall, 'name' | 'arguments'>): string {
  let args = call.arguments.trim() || '{}';
  try {
    args = sortedJson(JSON.parse(args));
  } catch {
    // Not JSON: the text is the call.
  }
  return `${call.name}:${fnv1a(args)}${fnv1a(`${args.length}\n${args}`)}`;
}

/** 32-bit FNV-1a of a string, as 8 hex digits. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}
