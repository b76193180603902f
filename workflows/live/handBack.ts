/**
 * Handing a conversation back: once a turn is answered by an agent a handoff of that turn brought
 * in, the handoff's `returnTo` (or the agent's own) says who answers the next message: the agent
 * that handed off (`caller`), a named agent, or the specialist itself (`stay`, the default).
 *
 * Pure: no Temporal API, no I/O.
 */
import type { ChatMessage } from '../../src/common/model';
import type { ChainState } from '../../src/common/state';

/** Where the conversation goes back to, and the chain state it goes on from. */
export interface HandBack {
  from: string;
  to: string;
  /** What said so: `caller` or the agent's id. */
  returnTo: string;
  state: ChainState;
}

/** The hand-back the answered turn asks for, or `undefined` when the answering agent stays. */
export function handBack(s: ChainState): HandBack | undefined {
  const last = s.chain.at(-1);
  if (!last || last.to !== s.agentId) return undefined;
  const returnTo = s.team.agents[last.from]?.handoffOptions?.[last.to]?.returnTo ?? s.team.agents[s.agentId]?.returnTo;
  if (!returnTo || returnTo === 'stay') return undefined;
  const to = returnTo === 'caller' ? last.from : returnTo;
  const target = s.team.agents[to];
  if (!target || to === s.agentId) return undefined;
  // The agent taken back reads the whole exchange under its own instructions.
  const messages: ChatMessage[] = [
    { role: 'system', content: target.instructions },
    ...s.messages.filter((m) => m.role !== 'system'),
  ];
  return {
    from: s.agentId,
    to,
    returnTo,
    state: { ...s, agentId: to, activationTurns: 0, answerRetries: {}, messages },
  };
}
