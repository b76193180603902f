/**
 * Economics from a chain's start: no cost yet, and its first agent's edge. The fold that prices
 * what follows is the chain's own (`chain/costs.ts`), re-exported here for the economics features.
 *
 * Pure: no Temporal API, no I/O.
 */
import { edgeKey, type EconomicsState } from '../../src/common/economics/chain';
import { currencyOf, noCost } from '../../src/common/economics/prices';
import type { ChainState } from '../../src/common/state';

export { costOfCall, priced, spentMicros } from '../chain/costs';

/** `s` with economics from its start: no cost yet, and its first agent's edge. */
export function withEconomics(s: ChainState, conversation?: EconomicsState['conversation']): ChainState {
  const economics: EconomicsState = {
    edge: edgeKey('', s.agentId),
    usageByEdge: {},
    usageByDelegation: {},
    ...(conversation ? { conversation } : {}),
  };
  return { ...s, economics, usage: { ...s.usage, cost: s.usage.cost ?? noCost(currencyOf(s.team.economics?.prices)) } };
}
