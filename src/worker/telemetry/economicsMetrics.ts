/**
 * The metrics of economics: what model calls cost (`baton_cost_total`, by agent, model and
 * currency), spend-limit refusals, and the state of the shared circuit breakers this process ran.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { ControlEvent } from '../../common/controls';
import { callCost, fromMicros } from '../../common/economics/prices';
import type { BreakerView } from '../../common/economics/messages';
import type { CallModelInput, ModelResponse } from '../../common/model';

/** The metrics of costs and shared breakers (`baton_cost_total` and the breakers' state). */
export class EconomicsMetrics {
  readonly cost: Counter<'agent' | 'model' | 'currency'>;
  readonly spendRefusals: Counter<'limit' | 'on_exceeded'>;
  readonly sharedBreakerRefusals: Counter<'target'>;
  readonly sharedBreakers: Gauge<'scope' | 'target' | 'state'>;

  constructor(registry: Registry) {
    const on = { registers: [registry] };
    this.cost = new Counter({
      name: 'baton_cost_total',
      help: "What model calls cost at the chain's prices, by agent, model and currency (calls of models without a price are not counted)",
      labelNames: ['agent', 'model', 'currency'],
      ...on,
    });
    this.spendRefusals = new Counter({
      name: 'baton_spend_refusals_total',
      help: 'Model calls a spend limit shared across runs refused, by limit and what the chain did (refuse: failed, wait: waited for the next window)',
      labelNames: ['limit', 'on_exceeded'],
      ...on,
    });
    this.sharedBreakerRefusals = new Counter({
      name: 'baton_shared_breaker_refusals_total',
      help: 'Handoffs and delegations a shared circuit breaker refused, by target',
      labelNames: ['target'],
      ...on,
    });
    this.sharedBreakers = new Gauge({
      name: 'baton_shared_breaker_state',
      help: 'Shared circuit breakers by scope, target and state (1 for the state each is in), as the workers of this process last ran them',
      labelNames: ['scope', 'target', 'state'],
      ...on,
    });
  }

  /** A model call answered: its cost, when its chain priced its model. */
  modelCall(call: CallModelInput, response: ModelResponse): void {
    if (!call.price || !response.usage) return;
    const cost = callCost(call.price, response.usage);
    this.cost.inc({ agent: call.agentId, model: call.model.model, currency: cost.currency }, fromMicros(cost.micros));
  }

  /** What a control of economics did. */
  control(c: ControlEvent): void {
    if (c.kind === 'spend_refused') this.spendRefusals.inc({ limit: c.limit, on_exceeded: c.onExceeded });
    if (c.kind === 'shared_breaker_refused') this.sharedBreakerRefusals.inc({ target: c.agent });
  }

  /** A shared breaker's new state. */
  breaker(view: Pick<BreakerView, 'scope' | 'target' | 'state'>): void {
    for (const state of ['closed', 'open', 'half_open'] as const)
      this.sharedBreakers.set({ scope: view.scope, target: view.target, state }, view.state === state ? 1 : 0);
  }
}
