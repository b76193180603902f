/**
 * A chain's part in what chains share: before each model call its worst case is reserved in the
 * ledger of every spend limit the snapshot has (refused or waiting when it could pass one), after
 * the call what it cost is settled; before a handoff or delegation the target's shared breaker is
 * asked, and the target's failures and successes are reported to it. News (settles, reports) go out
 * without the chain waiting for them; they are all done before the chain ends or continues as new.
 */
import { durationMs } from '../../src/common/check';
import { isCancellation } from '@temporalio/workflow';
import { PriceUnknownError, SpendLimitExceededError } from '../../src/common/economics/errors';
import { ModelCallFailedError } from '../../src/common/errors';
import type { BreakerAnswer, SpendLedgerInput } from '../../src/common/economics/messages';
import { callCost, type CallTokens, currencyOf, type ModelPrice, priceOf } from '../../src/common/economics/prices';
import {
  keyFromContext,
  type SharedBreakersSpec,
  type SpendLimitSpec,
  type SpendRefusal,
  windowOf,
} from '../../src/common/economics/spec';
import type { ChainState } from '../../src/common/state';
import { recordControl } from '../chain/controls';
import { currentAgent } from '../chain/state';
import type { ChainEffects } from '../chain/effects';
import type { ChainRun, EconomyPort } from '../chain/run';
import { CONTINUE, type Verdict } from '../chain/verdict';
import { worstCaseMicros } from '../guards/costs';
import { costOfCall } from './costs';
import type { EconomicsEffects } from './effects';

const MAX_TTL_MS = 31 * 86_400_000;
/** A reservation that must wait asks again after this long, then twice as long each time, up to {@link WAIT_MAX_MS}. */
const WAIT_FIRST_MS = 500;
const WAIT_MAX_MS = 8_000;

/** A chain's spend limits and shared circuit breakers, as the chain's {@link EconomyPort}: reservations around its model calls, news of its targets. */
export class Economy implements EconomyPort {
  private readonly pending = new Set<Promise<void>>();
  /** The reservations of the call in flight, and the price they were made at. */
  private held: { ledgers: SpendLedgerInput[]; id: string; price: ModelPrice } | undefined;
  /** What each target's shared breaker last answered this chain. */
  private readonly asked = new Map<string, BreakerAnswer>();
  /** Targets that failed in this chain since their last success here: their work was not a success. */
  private readonly failed = new Set<string>();

  constructor(private readonly port: EconomicsEffects) {}

  /** Before the current agent's model call: reserve its worst case in every spend limit's ledger. */
  async beforeCall(run: ChainRun): Promise<void> {
    const s = run.chain.state;
    const limits = s.team.economics?.spendLimits ?? [];
    if (limits.length === 0 || !s.economics) return;
    const agent = currentAgent(s);
    const price = priceOf(s.team.economics?.prices, agent.model);
    if (!price)
      throw new PriceUnknownError(
        { agent: agent.id, model: agent.model.model, provider: agent.model.provider },
        `The spend limit "${limits[0]!.name}"`,
      );
    const needed = worstCaseMicros(s, price);
    const { workflowId, runId } = this.port.chain;
    const id = `${workflowId}/${runId}#${s.turns}`;
    const chainWaits = this.port.waitsOnTimer();
    for (let waits = 0; ;) {
      const now = run.effects.now();
      const ledgers = limits.map((l) => ledgerOf(l, s, now));
      const answers = await Promise.all(
        limits.map((l, i) =>
          this.port
            .reserve({
              ledger: ledgers[i]!,
              request: { id, chain: workflowId, micros: needed, limitMicros: l.limitMicros, ttlMs: ttlOf(s) },
              ...(chainWaits ? { chainWaits } : {}),
            })
            .catch((err: unknown) => {
              // No call is made that its limit could not be asked about.
              if (isCancellation(err)) throw err;
              throw new ModelCallFailedError(
                agent.id,
                `its spend limit "${l.name}" could not be asked: ${(err as Error).message}`,
              );
            }),
        ),
      );
      const refused = answers.findIndex((a) => 'granted' in a && !a.granted);
      if (refused < 0 && answers.some((a) => !('granted' in a))) {
        // Other chains' reservations stand in the way: ask again once they may have settled. A ledger that
        // granted already answers the same reservation (by its id) granted again, counting it once.
        const timer = run.effects.timer(Math.min(WAIT_MAX_MS, WAIT_FIRST_MS * 2 ** waits++));
        await run.effects.condition(() => timer.fired);
        continue;
      }
      if (refused < 0) {
        this.held = { ledgers, id, price };
        return;
      }
      // What the other ledgers granted is released: the call is not made now.
      ledgers.forEach((ledger, i) => {
        if (i !== refused) this.track(this.port.settle({ ledger, settle: { id, micros: 0 } }));
      });
      const limit = limits[refused]!;
      const ledger = ledgers[refused]!;
      const answer = answers[refused]!;
      const refusal: SpendRefusal = {
        limit: limit.name,
        key: ledger.key,
        window: limit.window,
        windowStart: ledger.windowStart,
        currency: ledger.currency,
        limitMicros: answer.limitMicros,
        spentMicros: answer.spentMicros,
        reservedMicros: answer.reservedMicros,
        neededMicros: needed,
        agent: agent.id,
      };
      // A call whose worst case is more than the whole limit would wait forever.
      if (limit.onExceeded === 'refuse' || needed > limit.limitMicros) {
        recordControl(run, { kind: 'spend_refused', onExceeded: 'refuse', ...refusal });
        throw new SpendLimitExceededError(refusal);
      }
      recordControl(run, { kind: 'spend_refused', onExceeded: 'wait', until: ledger.windowEnd, ...refusal });
      const timer = run.effects.timer(Math.max(1, Date.parse(ledger.windowEnd) - now));
      await run.effects.condition(() => timer.fired);
    }
  }

  /** After the call: what it cost is settled in the ledgers that reserved it (nothing when it failed). */
  afterCall(tokens: CallTokens | undefined): void {
    const held = this.held;
    if (!held) return;
    this.held = undefined;
    const micros = tokens ? callCost(held.price, tokens).micros : 0;
    for (const ledger of held.ledgers) this.track(this.port.settle({ ledger, settle: { id: held.id, micros } }));
  }

  /** A model call made without a reservation (a handoff's summary, routing, a compaction): its cost goes to the ledgers as it is. */
  charge(s: ChainState, effects: Pick<ChainEffects, 'now' | 'newId'>, tokens: CallTokens): void {
    const limits = s.team.economics?.spendLimits ?? [];
    if (limits.length === 0 || !s.economics) return;
    const micros = costOfCall(s, tokens).micros;
    if (micros === 0) return;
    const id = `${this.port.chain.workflowId}/${this.port.chain.runId}~${effects.newId()}`;
    const now = effects.now();
    for (const l of limits) this.track(this.port.settle({ ledger: ledgerOf(l, s, now), settle: { id, micros } }));
  }

  /** Before a handoff or delegation from `from` to `to`: what the target's shared breaker says. */
  async beforeTarget(run: ChainRun, from: string, to: string, what: string): Promise<Verdict> {
    const s = run.chain.state;
    const b = s.team.economics?.sharedBreakers;
    if (!b || !s.economics) return CONTINUE;
    const scope = scopeOf(s, b, this.port.chain.taskQueue);
    // A breaker that cannot be asked lets the chain through: it protects the target, it does not guard access (the chain's own breaker still counts).
    const answer = await this.port
      .ask({
        breaker: { scope, target: to },
        message: { chain: this.port.chain.workflowId, threshold: b.threshold, cooldownMs: b.cooldownMs },
      })
      .catch((err: unknown) => {
        if (isCancellation(err)) throw err;
        return undefined;
      });
    if (!answer) return CONTINUE;
    this.asked.set(to, answer);
    if (answer.state === 'closed') return CONTINUE;
    if (answer.trial) {
      recordControl(run, { kind: 'shared_breaker_trial', agent: to, scope });
      return CONTINUE;
    }
    const until = answer.until ? ` until ${answer.until}` : '';
    return {
      kind: 'retry',
      control: {
        kind: 'shared_breaker_refused',
        agent: to,
        from,
        scope,
        failures: answer.failures,
        ...(answer.until ? { until: answer.until } : {}),
      },
      message: `Not ${what}: ${to} is unavailable after ${answer.failures} failures across the team's chains (its shared circuit breaker is ${answer.state === 'open' ? 'open' : 'letting one trial through'}${until}). Choose another agent, or answer with what you have.`,
    };
  }

  /** A failure of `agent` in this chain: its shared breaker counts it. */
  noteFailure(run: ChainRun, agent: string, reason: string): void {
    this.failed.add(agent);
    this.report(run, agent, 'failure', reason);
  }

  /**
   * `agent` finished its work here without failing: its shared breaker hears of it when this chain
   * knows of failures there, or made its trial. Work in which the agent failed is no success, so
   * failures in chains one after another add up.
   */
  noteSuccess(run: ChainRun, agent: string): void {
    if (this.failed.delete(agent)) return;
    const last = this.asked.get(agent);
    if (!last || (last.failures === 0 && !last.trial)) return;
    this.asked.delete(agent);
    this.report(run, agent, 'success');
  }

  /** Wait for the news sent so far. */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  private report(run: ChainRun, agent: string, outcome: 'failure' | 'success', reason?: string): void {
    const s = run.chain.state;
    const b = s.team.economics?.sharedBreakers;
    if (!b || !s.economics) return;
    const scope = scopeOf(s, b, this.port.chain.taskQueue);
    const message = {
      id: run.effects.newId(),
      chain: this.port.chain.workflowId,
      outcome,
      ...(reason ? { reason: reason.slice(0, 500) } : {}),
      threshold: b.threshold,
      cooldownMs: b.cooldownMs,
    };
    this.track(this.port.report({ breaker: { scope, target: agent }, message }));
  }

  /** News that cannot be delivered is not the chain's failure: an unsettled reservation expires and is charged in full. */
  private track(news: Promise<void>): void {
    const p = news.catch(() => undefined);
    this.pending.add(p);
    void p.then(() => this.pending.delete(p));
  }
}

/** The ledger of `limit` for the chain's key at workflow time `now`. */
function ledgerOf(limit: SpendLimitSpec, s: ChainState, now: number): SpendLedgerInput {
  const w = windowOf(now, limit.window);
  return {
    name: limit.name,
    key: keyFromContext(s.context, limit.keyFrom) ?? '',
    window: limit.window,
    windowStart: w.start,
    windowEnd: w.end,
    currency: currencyOf(s.team.economics?.prices),
  };
}

/** The scope a chain's shared breakers are kept in: its task queue or team name, and its key when they are kept per key. */
export function scopeOf(s: ChainState, b: SharedBreakersSpec, taskQueue: string): string {
  const base = b.scope === 'team' ? `team:${s.team.version?.name ?? 'team'}` : `queue:${taskQueue}`;
  return b.keyFrom ? `${base}:${keyFromContext(s.context, b.keyFrom) ?? ''}` : base;
}

/** How long a reservation holds: as long as the call may take, every retry included. */
function ttlOf(s: ChainState): number {
  const perAttempt = durationMs(s.options.modelTimeout) ?? 600_000;
  return Math.min(MAX_TTL_MS, perAttempt * s.options.retry.maximumAttempts + 60_000);
}

/** Problems with the run's context for the keys its team's limits and breakers are kept by. */
export function contextProblems(s: ChainState): string[] {
  const e = s.team.economics;
  const keyed = [
    ...(e?.spendLimits ?? []).map((l) => ({ field: l.keyFrom, what: `the spend limit "${l.name}"` })),
    ...(e?.sharedBreakers ? [{ field: e.sharedBreakers.keyFrom, what: 'the shared circuit breakers' }] : []),
  ];
  return keyed
    .filter((k) => k.field !== undefined && keyFromContext(s.context, k.field) === undefined)
    .map(
      (k) =>
        `"context.${k.field}" is missing or not a string or number: ${k.what} is kept per ${k.field}, so the run's context must give it`,
    );
}
