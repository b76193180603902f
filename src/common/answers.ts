/**
 * What the model is told when baton, not a tool, answers one of its calls: an unknown tool, a
 * handoff that went ahead, was refused or ignored, an empty answer. One place for these texts, so
 * the workflow, the activities and the audit agree on them.
 *
 * Workflow-safe: no I/O.
 */
import type { ToolCall } from './model';

/** The answer to a call of a tool the agent does not have; it lists every tool the agent has. */
export function unknownToolAnswer(name: string, available: readonly string[]): string {
  return `Error: unknown tool "${name}". Available tools: ${available.length > 0 ? available.join(', ') : '(none)'}`;
}

/** The answer to a handoff call that lost to an earlier one in the same turn. */
export function ignoredHandoffAnswer(winner: ToolCall | undefined): string {
  const target = winner ? ` (the first one, ${winner.arguments}, was used)` : '';
  return `Ignored: only one handoff per turn is executed${target}.`;
}

/** The answer to a handoff that went ahead. */
export function handedOffAnswer(to: string, how?: { approver?: string; onTimeout?: boolean }): string {
  if (how?.onTimeout) return `Handed off to ${to} (approved when nobody decided in time).`;
  return how?.approver ? `Handed off to ${to} (approved by ${how.approver}).` : `Handed off to ${to}.`;
}

/**
 * The answer to a handoff a person rejected. With `data` (a typed reason or questions asked on the
 * way, as JSON: `rejectionJson`) the model gets them as data, once, instead of prose.
 */
export function rejectedHandoffAnswer(
  to: string,
  approver: string | undefined,
  reason: string | undefined,
  data?: string,
): string {
  if (data !== undefined)
    return `The handoff to ${to} was rejected. Rejection: ${data}. Continue without it: answer yourself or hand off elsewhere.`;
  return `The handoff to ${to} was rejected by ${approver ?? 'an approver'}${reason ? `: ${reason}` : ''}. Continue without it: answer yourself or hand off elsewhere.`;
}

/** The answer to a handoff the worker's `onHandoff` check vetoed. */
export function vetoedHandoffAnswer(to: string, reason: string): string {
  return `The handoff to ${to} was refused: ${reason}. Continue without it: answer yourself or hand off elsewhere.`;
}

/** The answer to a handoff whose target is not offered now (its `isEnabled` rule does not hold). */
export function unavailableHandoffAnswer(to: string): string {
  return `Error: the handoff to ${to} is not available now. Answer yourself or hand off to one of the agents your handoff tool offers.`;
}

/** The answer to a handoff nobody decided in time, when the policy says reject. */
export function expiredHandoffAnswer(to: string): string {
  return `The handoff to ${to} was not approved in time. Continue without it: answer yourself or hand off elsewhere.`;
}

/** The answer to a handoff to a target the agent may not hand off to (`onInvalidHandoff: 'retry'`). */
export function invalidTargetAnswer(problem: string, toolName: string, targets: readonly string[]): string {
  return `Error: ${problem}. Call ${toolName} again with one of: ${targets.join(', ')}`;
}

/** What the model is told when its final answer does not match its output type. */
export function invalidOutputAnswer(problem: string): string {
  return `Your answer does not match the required output: ${problem}. Answer again with only the JSON value, nothing else.`;
}

/** What the model is told after an empty answer (`onEmptyOutput: 'retry'`). */
export const EMPTY_OUTPUT_NUDGE =
  'Your last answer was empty. Answer the user now in plain text, or call one of your tools.';
