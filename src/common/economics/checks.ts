/**
 * Checks of the economics in what a workflow takes from outside: a carried chain's costs and
 * economics state, and a snapshot's prices, limits and breakers (a continued chain carries them).
 *
 * Workflow-safe: no I/O.
 */
import { arrayOf, type Check, integer, nonEmptyString, number, oneOf, recordOf, shapeOf, shown } from '../check';
import type { Usage } from '../run';
import type { EconomicsState } from './chain';
import type { CallTokens, Cost } from './prices';
import type { EconomicsSpec, SharedBreakersSpec, SpendLimitSpec } from './spec';
import { priceTableProblems } from './prices';

const count = integer(0, Number.MAX_SAFE_INTEGER);

/** A cost as usage carries it. */
export const costCheck: Check<Cost> = shapeOf<Cost>()({
  currency: (v, key) =>
    typeof v === 'string' && /^[A-Z]{3}$/.test(v) ? [] : [`"${key}" must be an ISO 4217 code, got ${shown(v)}`],
  micros: count,
  unpricedCalls: count,
});

/** Usage, its cost included when it has one. */
export const usageCheck: Check<Usage> = shapeOf<Usage>()(
  { inputTokens: count, outputTokens: count, totalTokens: count, modelCalls: count, toolCalls: count, cost: costCheck },
  ['cost'],
);

/** The tokens of a model answer. */
export const callTokensCheck: Check<CallTokens> = shapeOf<CallTokens>()(
  { inputTokens: count, outputTokens: count, cachedInputTokens: count },
  ['cachedInputTokens'],
);

/** A chain's economics state. */
export const economicsStateCheck: Check<EconomicsState> = shapeOf<EconomicsState>()(
  {
    edge: (v, key) => (typeof v === 'string' ? [] : [`"${key}" must be an edge "from→to", got ${shown(v)}`]),
    usageByEdge: recordOf(usageCheck),
    usageByDelegation: recordOf(usageCheck),
    conversation: shapeOf<NonNullable<EconomicsState['conversation']>>()({ spentMicros: count, limitMicros: count }),
  },
  ['conversation'],
);

const spendLimitSpec = shapeOf<SpendLimitSpec>()(
  {
    name: nonEmptyString,
    keyFrom: nonEmptyString,
    limitMicros: count,
    window: oneOf(['hour', 'day', 'month']),
    onExceeded: oneOf(['refuse', 'wait']),
  },
  ['keyFrom'],
);

/** A snapshot's economics. */
export const economicsSpecCheck: Check<EconomicsSpec> = shapeOf<EconomicsSpec>()(
  {
    prices: (p, k) => priceTableProblems(p, k),
    spendLimits: arrayOf(spendLimitSpec, 'spend limits'),
    sharedBreakers: shapeOf<SharedBreakersSpec>()(
      {
        threshold: integer(1, 1000),
        cooldownMs: number(1000, 365 * 86_400_000),
        scope: oneOf(['task_queue', 'team']),
        keyFrom: nonEmptyString,
      },
      ['keyFrom'],
    ),
  },
  ['prices', 'spendLimits', 'sharedBreakers'],
);
