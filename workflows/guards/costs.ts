/**
 * Budgets in money: the run's `maxCost` (its specialists' costs included) and a conversation's
 * `maxCost`. Before each model call the call's worst case — its input, estimated generously, and
 * its `maxTokens` of output at the model's price — must fit what is left; after a call that asks
 * for more work, what was spent must not have passed the budget. Outcomes as the other budgets:
 * `BudgetExceededError` (budget `cost`), or one last turn under `onBudgetExceeded: 'final_answer'`.
 * A model without a price cannot be held to a budget: `PriceUnknownError`.
 */
import { PriceUnknownError } from '../../src/common/economics/errors';
import { currencyOf, type ModelPrice, priceOf, toMicros } from '../../src/common/economics/prices';
import type { ModelSpec } from '../../src/common/model';
import type { ChainState } from '../../src/common/state';
import { spentMicros } from '../economics/costs';
import { overBudget } from './budgets';
import { CONTINUE, type Verdict } from '../chain/verdict';
import type { Guard } from './guard';

/** Output tokens a call is assumed to be able to produce when its model spec sets no `maxTokens`. */
export const ASSUMED_MAX_OUTPUT_TOKENS = 4096;

/** The most output a call of `model` can produce: its `settings.maxTokens`, else {@link ASSUMED_MAX_OUTPUT_TOKENS}. */
export function maxOutputTokens(model: ModelSpec): number {
  const max = (model as { settings?: { maxTokens?: unknown } }).settings?.maxTokens;
  return typeof max === 'number' && Number.isInteger(max) && max > 0 ? max : ASSUMED_MAX_OUTPUT_TOKENS;
}

/**
 * Input tokens of the current agent's next call, estimated generously: three characters a token
 * over the JSON of its conversation and tools (real tokenizers give about four), every token uncached.
 */
export function inputEstimate(s: ChainState): number {
  const agent = s.team.agents[s.agentId];
  const tools = agent ? [agent.tools, agent.handoffTool, agent.handoffTools, agent.delegateTool] : [];
  return Math.ceil((JSON.stringify(s.messages).length + JSON.stringify(tools).length) / 3);
}

/** The worst a model call of the current agent can cost at `price`, in micros (rounded up). */
export function worstCaseMicros(s: ChainState, price: ModelPrice): number {
  const agent = s.team.agents[s.agentId]!;
  const input = inputEstimate(s) * toMicros(price.input);
  const output = maxOutputTokens(agent.model) * toMicros(price.output);
  return Math.ceil((input + output) / 1_000_000);
}

type CostBudget = { limit: number; used: number; scope?: 'conversation' };

/** The money budgets of the chain: its own `maxCost`, and its conversation's. */
function budgetsOf(s: ChainState): CostBudget[] {
  const spent = spentMicros(s);
  const conversation = s.economics?.conversation;
  return [
    ...(s.options.maxCost > 0 ? [{ limit: toMicros(s.options.maxCost), used: spent }] : []),
    ...(conversation && conversation.limitMicros > 0
      ? [{ limit: conversation.limitMicros, used: conversation.spentMicros + spent, scope: 'conversation' as const }]
      : []),
  ];
}

function spent(s: ChainState, b: CostBudget, needed?: number): Verdict {
  const currency = currencyOf(s.team.economics?.prices);
  return overBudget(s, {
    budget: 'cost',
    limit: b.limit,
    used: b.used,
    agent: s.agentId,
    currency,
    ...(needed !== undefined ? { needed } : {}),
    ...(b.scope ? { scope: b.scope } : {}),
  });
}

export const costGuard: Guard = {
  name: 'cost',
  beforeModelCall(s) {
    if (!s.economics || !s.controls || s.controls.finalTurn) return CONTINUE;
    const budgets = budgetsOf(s);
    if (budgets.length === 0) return CONTINUE;
    const agent = s.team.agents[s.agentId]!;
    const price = priceOf(s.team.economics?.prices, agent.model);
    if (!price)
      return {
        kind: 'fail',
        error: new PriceUnknownError({ agent: agent.id, model: agent.model.model, provider: agent.model.provider }),
      };
    const needed = worstCaseMicros(s, price);
    const over = budgets.find((b) => b.used + needed > b.limit);
    return over ? spent(s, over, needed) : CONTINUE;
  },
  afterModelResponse(s, response) {
    // A call that cost more than its estimate: no more work once the budget is passed (the answer it gave stands).
    if (
      !s.economics ||
      !s.controls ||
      s.controls.finalTurn ||
      s.options.onBudgetExceeded !== 'fail' ||
      response.toolCalls.length === 0
    )
      return CONTINUE;
    const over = budgetsOf(s).find((b) => b.used > b.limit);
    return over ? spent(s, over) : CONTINUE;
  },
  beforeDelegation(s) {
    if (!s.economics || !s.controls || s.controls.finalTurn) return CONTINUE;
    const over = budgetsOf(s).find((b) => b.used >= b.limit);
    return over ? spent(s, over) : CONTINUE;
  },
};
