/**
 * What `baton chat` prints besides the answers as they form: the commands' help, the turns before
 * the chat, a turn of the history, the status line, the end of the conversation, and an agent's
 * answer made safe for the terminal.
 */
import type { ConversationTurn } from '../client/conversation';
import type { ConversationResult, ConversationView } from '../common/conversation';
import { displayText } from '../common/display';
import { type Cost, formatCost } from '../common/economics/prices';
import { formatHandoff } from './print';

/** The commands a chat takes besides messages, as `/help` lists them. */
export const COMMANDS_HELP = `/approve [approvalId] [comment]  approve the handoff waiting for approval
/reject [approvalId] [reason]    reject it; the agent is told why
/history                         the conversation so far, from its history
/status                          the active agent, what is being answered and what waits
/end                             end the conversation (once what you sent is answered)
/quit                            leave; the conversation stays open (Ctrl-D too)`;

/** A turn from before this chat, as the chat shows it when it opens: the message, its handoffs, the answer. */
export function pastTurnLines(t: ConversationTurn<unknown>): string[] {
  return [
    `#${t.turn} you: ${displayText(t.message ?? '')}`,
    ...t.handoffs.map((h) => formatHandoff(h)),
    t.failure
      ? displayText(`✗ ${t.failure.type}: ${t.failure.message}`)
      : `${t.agent}: ${t.output === undefined ? '…' : shown(t.output)}`,
  ];
}

/** A turn as `/history` shows it: the message, then who answered and how. */
export function historyLine(t: ConversationTurn<unknown>): string {
  const answer = t.failure ? `✗ ${t.failure.type}` : `${t.agent}: ${t.output === undefined ? '…' : shown(t.output)}`;
  return `#${t.turn} you: ${displayText(t.message ?? '')}\n   ${answer}`;
}

/** What `/status` says: the active agent, the turns, what waits, the tokens and their cost, the run. */
export function statusLine(v: ConversationView): string {
  return `${v.status}: ${v.activeAgent} is active, ${v.turns} turns, ${v.queued} waiting, ${v.pendingApprovals.length} approval(s) waiting, ${v.usage.totalTokens} tokens${costText(v.usage.cost)}, run ${v.runs}`;
}

/** What `/end` says once the conversation has ended. */
export function endedLine(result: ConversationResult): string {
  return `conversation ended: ${result.turns} turns, ${result.handoffs} handoffs, ${result.usage.totalTokens} tokens${costText(result.usage.cost)}`;
}

/** `, cost 0.001250 USD` when usage has a cost. */
function costText(cost: Cost | undefined): string {
  return cost ? `, cost ${formatCost(cost)}` : '';
}

/** An agent's answer: its own lines stay lines; anything else that would act on the terminal shows as an escape. */
export function shown(output: unknown): string {
  return (typeof output === 'string' ? output : JSON.stringify(output)).split('\n').map(displayText).join('\n');
}
