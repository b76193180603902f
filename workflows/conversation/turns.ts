/**
 * A conversation's turns as transitions of its state: the chain a message starts, what a failed
 * turn restores, the reply, and the replies remembered by idempotency key.
 *
 * Pure: no Temporal API, no I/O.
 */
import type {
  ConversationReply,
  ConversationState,
  CurrentTurn,
  QueuedMessage,
  RememberedReply,
} from '../../src/common/conversation';
import type { ResolvedConversationOptions } from '../../src/common/conversationOptions';
import type { ResolvedRunOptions } from '../../src/common/options';
import { addCost } from '../../src/common/economics/prices';
import type { Usage } from '../../src/common/run';
import type { ChainState } from '../../src/common/state';
import type { RunContext, TeamSpec } from '../../src/common/team';
import { agentOf, startChain } from '../chain/state';

export const NO_USAGE: Usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0, modelCalls: 0, toolCalls: 0 };

/** A conversation that has taken no message yet: `agent` with its instructions only. */
export function startConversation(
  team: TeamSpec,
  agent: string,
  options: { run: ResolvedRunOptions; conversation: ResolvedConversationOptions; context?: RunContext; now: number },
): ConversationState {
  const chain = startChain(team, agent, '', options.run, options.context, { startedAt: options.now });
  return {
    chain: { ...chain, messages: [{ role: 'system', content: agentOf(team, agent).instructions }] },
    conversation: options.conversation,
    turns: 0,
    queued: [],
    replies: [],
    usage: { ...NO_USAGE },
    handoffs: 0,
    compactions: 0,
    lastActiveAt: new Date(options.now).toISOString(),
    continuedRuns: 0,
  };
}

/**
 * The chain that answers `message`: the active agent's conversation with the message added, around
 * it a fresh chain (no handoffs yet, limits, budgets and approvals counted from here). Model turns
 * and calls per agent keep counting across the conversation, so tool idempotency keys never repeat.
 */
export function beginTurn(s: ChainState, message: string, now: number): ChainState {
  const fresh = startChain(
    s.team,
    s.agentId,
    message,
    s.options,
    s.context,
    s.controls ? { startedAt: now } : undefined,
  );
  return {
    ...fresh,
    messages: [...s.messages, { role: 'user', content: message }],
    ...(s.shared ? { shared: s.shared } : {}),
    turns: s.turns,
    callCounts: s.callCounts,
    continuedRuns: s.continuedRuns,
  };
}

/** The turn `m` starts, with what a failure would restore. */
export function currentTurn(m: QueuedMessage, s: ChainState, now: number): CurrentTurn {
  return {
    ...m,
    startedAt: new Date(now).toISOString(),
    before: { agentId: s.agentId, messages: s.messages, ...(s.shared ? { shared: s.shared } : {}) },
  };
}

/**
 * The state after a failed turn: the agent, conversation and shared state from before it, with
 * nothing waiting. Model turns and calls per agent stay counted.
 */
export function rolledBack(s: ChainState, before: CurrentTurn['before']): ChainState {
  const { openTurn: _open, openTools: _tools, pendingResponse: _response, shared: _shared, ...rest } = s;
  return { ...rest, ...before, chain: [], approvals: { pending: [], decided: [] } };
}

/** The reply to turn `t`, from the chain that answered it. */
export function replyOf(t: QueuedMessage, s: ChainState, output: unknown): ConversationReply<unknown> {
  return {
    turn: t.turn,
    output,
    agent: s.agentId,
    handoffs: s.chain,
    usage: s.usage,
    idempotencyKey: t.idempotencyKey,
  };
}

/** The replies with `entry` added, the oldest dropped beyond `window`. */
export function remember(replies: RememberedReply[], entry: RememberedReply, window: number): RememberedReply[] {
  return [...replies.filter((r) => r.idempotencyKey !== entry.idempotencyKey), entry].slice(-window);
}

/** `a` and `b` added. */
export function addUsage(a: Usage, b: Usage): Usage {
  const cost = a.cost || b.cost ? addCost(a.cost, b.cost, b.modelCalls) : undefined;
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    modelCalls: a.modelCalls + b.modelCalls,
    toolCalls: a.toolCalls + b.toolCalls,
    ...(cost ? { cost } : {}),
  };
}

/** The key a message is remembered by: the caller's, or `#<turn>`. */
export function keyOf(idempotencyKey: string | undefined, turn: number): string {
  return idempotencyKey ?? `#${turn}`;
}
