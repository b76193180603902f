/**
 * One model turn's tool calls: what runs, which handoff counts, and how the turn closes with
 * every call answered in the model's order.
 *
 * Pure: no Temporal API, no I/O.
 */
import { isHandoffCall, READ_STATE_TOOL_NAME } from '../../src/common/handoff';
import type { ToolCall } from '../../src/common/model';
import type { ToolResultRecord } from '../../src/common/run';
import type { AgentSpec } from '../../src/common/team';

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
}

export function planTurn(calls: ToolCall[], agent?: Pick<AgentSpec, 'handoffToolTargets'>): TurnPlan {
  const tools: ToolCall[] = [];
  const ignoredHandoffs: ToolCall[] = [];
  let handoff: ToolCall | undefined;
  for (const call of calls) {
    if (!isHandoffCall(call, agent)) tools.push(call);
    else if (handoff) ignoredHandoffs.push(call);
    else handoff = call;
  }
  return handoff ? { tools, handoff, ignoredHandoffs } : { tools, ignoredHandoffs };
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
    ...(sharedState ? [READ_STATE_TOOL_NAME] : []),
  ];
}

/**
 * The idempotency key of a tool call: the same for every retry of the call (after a worker crash,
 * and after a replay that runs the same answer again), different for any two different calls. It is
 * built from workflow-deterministic values only, never from the provider's tool-call id, which can
 * be empty or repeated.
 */
export function idempotencyKey(workflowId: string, agentId: string, turn: number, index: number, call: ToolCall): string {
  return `${workflowId}:${agentId}:${turn}.${index + 1}:${fnv1a(`${call.name}\n${call.arguments}`)}`;
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
