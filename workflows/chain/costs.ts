/**
 * What model calls cost, folded into the chain state by its reducer: each call priced at the
 * snapshot's price of the model that made it, added to the chain's usage, its agent's, and its
 * handoff edge's; a specialist's usage added to its delegation edge. A replay folds the same events
 * at the same prices to the same figures.
 *
 * Pure: no Temporal API, no I/O.
 */
import { edgeKey, type EconomicsState } from '../../src/common/economics/chain';
import { addCost, callCost, type CallTokens, currencyOf, priceOf } from '../../src/common/economics/prices';
import type { ChainState } from '../../src/common/state';
import { addTokens, NO_USAGE } from './controlState';
import type { ChainEvent } from './events';

/** The state after `event` (`after`, from `before`) with what it cost. */
export function priced(before: ChainState, event: ChainEvent, after: ChainState): ChainState {
  const e = after.economics;
  if (!e) return after;
  switch (event.type) {
    case 'model_responded':
      return charged(before, after, e, event.response.usage);
    case 'model_used':
      return charged(before, after, e, event.usage);
    case 'handed_off':
      return { ...after, economics: { ...e, edge: edgeKey(event.record.from, event.record.to) } };
    case 'delegation_ended': {
      if (!event.usage) return after;
      const key = edgeKey(before.agentId, event.agent);
      return {
        ...after,
        economics: {
          ...e,
          usageByDelegation: {
            ...e.usageByDelegation,
            [key]: addTokens(e.usageByDelegation[key] ?? NO_USAGE, event.usage, event.usage.modelCalls),
          },
        },
      };
    }
    default:
      return after;
  }
}

/** What a call of the agent working in `before` cost, at its model's price. */
export function costOfCall(before: ChainState, tokens: CallTokens) {
  const prices = before.team.economics?.prices;
  const agent = before.team.agents[before.agentId];
  return callCost(agent ? priceOf(prices, agent.model) : undefined, tokens, currencyOf(prices));
}

function charged(before: ChainState, after: ChainState, e: EconomicsState, tokens: CallTokens): ChainState {
  const cost = costOfCall(before, tokens);
  const agent = before.agentId;
  const controls = after.controls;
  const own = controls?.usageByAgent[agent];
  return {
    ...after,
    usage: { ...after.usage, cost: addCost(after.usage.cost, cost)! },
    ...(controls && own
      ? {
          controls: {
            ...controls,
            usageByAgent: { ...controls.usageByAgent, [agent]: { ...own, cost: addCost(own.cost, cost)! } },
          },
        }
      : {}),
    economics: {
      ...e,
      usageByEdge: { ...e.usageByEdge, [e.edge]: addTokens(e.usageByEdge[e.edge] ?? NO_USAGE, { ...tokens, cost }) },
    },
  };
}

/** What the chain has spent so far, in micros (unpriced calls count as nothing: budgets refuse them before). */
export function spentMicros(s: ChainState): number {
  return s.usage.cost?.micros ?? 0;
}
