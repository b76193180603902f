/**
 * A conversation's money: its `maxCost` across messages, and what its compactions cost.
 *
 * Pure: no Temporal API, no I/O.
 */
import type { EconomicsState } from '../../src/common/economics/chain';
import type { CallTokens, Cost } from '../../src/common/economics/prices';
import { toMicros } from '../../src/common/economics/prices';
import type { ConversationState } from '../../src/common/conversation';
import type { ChainState } from '../../src/common/state';
import { costOfCall } from '../economics/costs';

/** What the conversation spent so far and its `maxCost`, for the next message's chain; none without a budget. */
export function conversationBudget(s: ConversationState): EconomicsState['conversation'] {
  const limit = s.conversation.maxCost ?? 0;
  return limit > 0 ? { spentMicros: s.usage.cost?.micros ?? 0, limitMicros: toMicros(limit) } : undefined;
}

/** What a compaction by the active agent's model cost, in a conversation with economics. */
export function compactionCost(chain: ChainState, tokens: CallTokens): { cost?: Cost } {
  return chain.economics ? { cost: costOfCall(chain, tokens) } : {};
}
