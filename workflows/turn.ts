import { isHandoffCall } from '../src/common/handoff';
import type { ToolCall } from '../src/common/types';

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

export function planTurn(calls: ToolCall[]): TurnPlan {
  const tools: ToolCall[] = [];
  const ignoredHandoffs: ToolCall[] = [];
  let handoff: ToolCall | undefined;
  for (const call of calls) {
    if (!isHandoffCall(call)) tools.push(call);
    else if (handoff) ignoredHandoffs.push(call);
    else handoff = call;
  }
  return handoff ? { tools, handoff, ignoredHandoffs } : { tools, ignoredHandoffs };
}

/** The tool result for a handoff call that lost to an earlier one in the same turn. */
export function ignoredHandoffResult(winner: ToolCall | undefined): string {
  const target = winner ? ` (the first one, ${winner.arguments}, was used)` : '';
  return `Ignored: only one handoff per turn is executed${target}.`;
}
