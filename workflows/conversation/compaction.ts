/**
 * Compaction: once the active agent's conversation passes `compactAfterTokens`, its older turns
 * are condensed into one summary by a recorded model call (the `summarizeHandoff` activity), and
 * the last `keepRecentTurns` user messages, with everything after each, stay word for word. So
 * what each model call sends, and records in history, stops growing with the conversation.
 * Between turns, a compaction is counted in the conversation's usage and put on the record.
 */
import type { ConversationState } from '../../src/common/conversation';
import { CONVERSATION_EVENT_MEMO } from '../../src/common/messages';
import type { ChatMessage } from '../../src/common/model';
import type { ResolvedConversationOptions } from '../../src/common/conversationOptions';
import type { ChainState } from '../../src/common/state';
import type { ChainEffects } from '../chain/effects';
import type { EconomyPort } from '../chain/run';
import { type Chain, currentAgent } from '../chain/state';
import { compactionCost } from './costs';
import { addUsage } from './turns';

/** How the summary message begins; a later compaction condenses it again with the turns after it. */
export const SUMMARY_PREFIX = 'Summary of the conversation so far:\n';

/** What the summarizing model is told besides the summary activity's own instructions. */
export const COMPACTION_INSTRUCTIONS =
  'The same agent goes on with this conversation after the summary: keep what the user asked for and was told, their details and preferences, and what is still open. An earlier summary at the start is part of the conversation.';

/** A conversation's size in tokens, estimated as characters / 4 (text, tool calls and their arguments). */
export function estimateTokens(messages: readonly ChatMessage[]): number {
  let chars = 0;
  for (const m of messages) {
    chars += (m.content ?? '').length;
    if (m.role === 'assistant') for (const c of m.toolCalls ?? []) chars += c.name.length + c.arguments.length;
  }
  return Math.ceil(chars / 4);
}

/** A conversation split for compaction: its leading system messages, the turns to condense, the turns kept. */
export interface CompactionPlan {
  head: ChatMessage[];
  older: ChatMessage[];
  kept: ChatMessage[];
  tokens: number;
}

/**
 * How to compact `messages`, or `undefined` when they are under the threshold or hold no more than
 * the turns to keep. The cut is at a user message, so no tool answer is ever parted from its call.
 */
export function planCompaction(
  messages: readonly ChatMessage[],
  options: Pick<ResolvedConversationOptions, 'compactAfterTokens' | 'keepRecentTurns'>,
): CompactionPlan | undefined {
  if (options.compactAfterTokens <= 0) return undefined;
  const tokens = estimateTokens(messages);
  if (tokens <= options.compactAfterTokens) return undefined;
  let start = 0;
  while (messages[start]?.role === 'system') start++;
  const users = [];
  for (let i = start; i < messages.length; i++) if (messages[i]!.role === 'user') users.push(i);
  const cut = users[users.length - options.keepRecentTurns];
  if (cut === undefined || cut <= start) return undefined;
  return { head: messages.slice(0, start), older: messages.slice(start, cut), kept: messages.slice(cut), tokens };
}

/** The conversation once compacted: its system messages, the summary, the kept turns. */
export function compacted(plan: CompactionPlan, summary: string): ChatMessage[] {
  return [...plan.head, { role: 'user', content: `${SUMMARY_PREFIX}${summary}` }, ...plan.kept];
}

/** What a compaction did, for the record. */
export interface Compaction {
  state: ChainState;
  usage: { inputTokens: number; outputTokens: number };
  summarizedMessages: number;
  keptMessages: number;
  tokensBefore: number;
  tokensAfter: number;
}

/** Compact the active agent's conversation when it has grown past the threshold; `undefined` when it has not. */
export async function compact(
  state: ChainState,
  options: ResolvedConversationOptions,
  effects: ChainEffects,
): Promise<Compaction | undefined> {
  const plan = planCompaction(state.messages, options);
  if (!plan) return undefined;
  const agent = currentAgent(state);
  const { summary, usage } = await effects.summarize(
    {
      agentId: agent.id,
      model: agent.model,
      transcript: transcript(plan.older),
      instructions: COMPACTION_INSTRUCTIONS,
    },
    state.options,
  );
  const messages = compacted(plan, summary);
  return {
    state: { ...state, messages },
    usage,
    summarizedMessages: plan.older.length,
    keptMessages: plan.kept.length,
    tokensBefore: plan.tokens,
    tokensAfter: estimateTokens(messages),
  };
}

/** The text a summary is made from: one paragraph per message, tool calls with their arguments. */
export function transcript(messages: readonly ChatMessage[]): string {
  return messages
    .map((m) => {
      const calls = m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => `[called ${c.name}(${c.arguments})]`) : [];
      return `${m.role}: ${[m.content ?? '', ...calls].filter((part) => part !== '').join(' ')}`;
    })
    .join('\n\n');
}

/**
 * Between turns, compact the active agent's conversation if it has grown past the threshold: the
 * call counted in the conversation's usage (and charged to its spend limits), the compaction put
 * on the record. `queued`: how many messages are taken and not yet begun, read once the summary
 * is in. `true` when it did.
 */
export async function compactBetweenTurns(
  conversation: ConversationState,
  chain: Chain,
  effects: ChainEffects,
  economy: Pick<EconomyPort, 'charge'> | undefined,
  queued: () => number,
): Promise<boolean> {
  const done = await compact(chain.state, conversation.conversation, effects);
  if (!done) return false;
  const { state, usage, ...record } = done;
  chain.state = state;
  conversation.compactions += 1;
  conversation.usage = addUsage(conversation.usage, {
    ...usage,
    totalTokens: usage.inputTokens + usage.outputTokens,
    modelCalls: 1,
    toolCalls: 0,
    ...compactionCost(state, usage),
  });
  economy?.charge(chain.state, effects, usage);
  // Between turns: every message taken is answered but those still queued.
  const afterTurn = conversation.turns - queued();
  effects.publish({
    [CONVERSATION_EVENT_MEMO]: {
      type: 'compacted',
      afterTurn,
      agent: state.agentId,
      ...record,
      at: new Date(effects.now()).toISOString(),
    },
  });
  return true;
}
