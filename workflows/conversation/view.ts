/**
 * What the `conversation` query answers: the conversation's status (answering, waiting for a
 * decision or a worker, idle, ending, ended), its current turn, what is queued and waits, and its
 * usage so far.
 */
import type { ConversationState, ConversationView, RememberedReply } from '../../src/common/conversation';
import type { ApprovalDesk } from '../chain/desk';
import type { Chain } from '../chain/state';

/** What the view reads besides the conversation's state. */
export interface ViewParts {
  chain: Chain;
  desk: ApprovalDesk;
  /** Messages taken and not yet begun. */
  queued: number;
  lastReply?: RememberedReply['reply'];
  /** The conversation has ended. */
  ended: boolean;
}

/** What the `conversation` query answers. */
export function conversationView(
  s: ConversationState,
  { chain, desk, queued, lastReply, ended }: ViewParts,
): ConversationView {
  const pending = desk.pendingInTree();
  const current = s.current;
  const busy = current?.stranded ? 'waiting_for_worker' : pending.length > 0 ? 'awaiting_approval' : 'answering';
  return {
    status: ended ? 'ended' : s.ending && !current ? 'ending' : current ? busy : 'idle',
    activeAgent: chain.state.agentId,
    turns: s.turns,
    ...(current
      ? {
          current: {
            turn: current.turn,
            message: current.message,
            idempotencyKey: current.idempotencyKey,
            ...(current.stranded ? { stranded: current.stranded } : {}),
          },
        }
      : {}),
    queued,
    pendingApprovals: pending,
    usage: s.usage,
    handoffs: s.handoffs + (current ? chain.state.chain.length : 0),
    compactions: s.compactions,
    runs: s.continuedRuns + 1,
    ...(lastReply ? { lastReply } : {}),
  };
}
