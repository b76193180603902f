/**
 * The errors of budgets in money and of spend limits shared across runs.
 *
 * Workflow-safe: no I/O.
 */
import { BatonError, UserError } from '../errors';
import { formatCost } from './prices';
import type { SpendRefusal, SpendWindow } from './spec';

/**
 * A budget in money (`maxCost`) or a spend limit needs the price of a model the team's prices do not
 * have: a cost that cannot be known cannot be held to a limit.
 */
export class PriceUnknownError extends UserError<{ agent: string; model: string; provider: string }> {
  declare readonly agent: string;
  declare readonly model: string;
  declare readonly provider: string;
  constructor(details: { agent: string; model: string; provider: string }, what = 'maxCost') {
    super(
      `${what} needs the price of model "${details.model}" (provider "${details.provider}") of agent "${details.agent}", which the team's prices do not have; give one: new Team(agents, { prices: { "${details.model}": { input, output } } }) or createWorker({ prices })`,
      details,
    );
  }
}

/**
 * A model call could pass a spend limit shared across runs (`spendLimits` with `onExceeded: 'refuse'`):
 * the chain stops before the call, and the refusal is on the record.
 */
export class SpendLimitExceededError extends BatonError<SpendRefusal & Record<string, unknown>> {
  declare readonly limit: string;
  declare readonly key: string;
  declare readonly window: SpendWindow;
  declare readonly windowStart: string;
  declare readonly currency: string;
  declare readonly limitMicros: number;
  declare readonly spentMicros: number;
  declare readonly reservedMicros: number;
  declare readonly neededMicros: number;
  declare readonly agent: string;
  constructor(d: SpendRefusal) {
    const money = (micros: number) => formatCost({ currency: d.currency, micros, unpricedCalls: 0 });
    super(
      `Spend limit "${d.limit}" for "${d.key}" refused a model call of "${d.agent}": the ${d.window} from ${d.windowStart} has ${money(d.spentMicros)} spent of ${money(d.limitMicros)}, and the call could cost up to ${money(d.neededMicros)}`,
      { ...d },
    );
  }
}
