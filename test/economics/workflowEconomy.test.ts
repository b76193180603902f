/** The workflow side of economics: the spend ledger, the shared breaker, and money in a chain run on fake effects. */
import { describe, expect, it } from 'vitest';
import {
  type LedgerState,
  PriceUnknownError,
  SpendLimitExceededError,
  type ReserveSpendInput,
} from '../../src/economics';
import type { EconomicsEffects } from '../../workflows/economics/effects';
import { Economy } from '../../workflows/economics/economy';
import { withEconomics } from '../../workflows/economics/costs';
import { Ledger, MAX_OPEN_RESERVATIONS, newLedger } from '../../workflows/economics/ledger';
import { newBreaker, SharedBreaker } from '../../workflows/economics/breaker';
import { worstCaseMicros } from '../../workflows/guards/costs';
import { defaultGuards } from '../../workflows/guards';
import { agentSpec, FakeEffects, fakeRun } from '../helpers/fakeEffects';

describe('a spend ledger', () => {
  const ask = (id: string, micros: number, limitMicros = 100) => ({
    id,
    chain: `chain-${id}`,
    micros,
    limitMicros,
    ttlMs: 60_000,
  });

  it('grants what fits, makes wait what only reservations stand in the way of, and refuses what spending leaves no room for', () => {
    const ledger = new Ledger(newLedger(100));
    expect(ledger.decide(ask('a', 60))).toBe('granted');
    ledger.take(ask('a', 60), 'granted', 0);
    // 60 reserved + 50 > 100, but the reservation may settle for less: wait.
    expect(ledger.decide(ask('b', 50))).toBe('wait');
    ledger.settle({ id: 'a', micros: 40 });
    expect(ledger.decide(ask('b', 50))).toBe('granted');
    ledger.take(ask('b', 50), 'granted', 0);
    ledger.settle({ id: 'b', micros: 50 });
    // 90 spent: no reservation of 20 can fit whatever settles.
    expect(ledger.decide(ask('c', 20))).toBe('refused');
    ledger.take(ask('c', 20), 'refused', 0);
    expect(ledger.state).toMatchObject({ spentMicros: 90, open: [], granted: 2, refused: 1 });
  });

  it('counts a reservation and a settle sent again once', () => {
    const ledger = new Ledger(newLedger(100));
    ledger.take(ask('a', 30), 'granted', 0);
    expect(ledger.decide(ask('a', 30))).toBe('granted');
    ledger.take(ask('a', 30), 'granted', 0);
    expect(ledger.reservedMicros).toBe(30);
    ledger.settle({ id: 'a', micros: 20 });
    ledger.settle({ id: 'a', micros: 20 });
    expect(ledger.state.spentMicros).toBe(20);
    expect(ledger.decide(ask('a', 30))).toBe('granted');
  });

  it('charges a reservation in full when it expires, and a late settle corrects the charge', () => {
    const ledger = new Ledger(newLedger(100));
    ledger.take(ask('a', 30), 'granted', 0);
    expect(ledger.expire(59_999)).toBe(60_000);
    expect(ledger.expire(60_000)).toBeUndefined();
    expect(ledger.state.spentMicros).toBe(30);
    ledger.settle({ id: 'a', micros: 12 });
    expect(ledger.state.spentMicros).toBe(12);
    ledger.settle({ id: 'a', micros: 12 });
    expect(ledger.state.spentMicros).toBe(12);
  });

  it(`holds at most ${MAX_OPEN_RESERVATIONS} reservations open`, () => {
    const state: LedgerState = {
      ...newLedger(1e12),
      open: Array.from({ length: MAX_OPEN_RESERVATIONS }, (_, i) => ({
        id: `r${i}`,
        chain: 'c',
        micros: 0,
        expiresAt: 1e15,
      })),
    };
    expect(new Ledger(state).decide(ask('one-more', 1, 1e12))).toBe('refused');
  });
});

describe('a shared breaker', () => {
  const settings = { threshold: 3, cooldownMs: 1000 };
  const fail = (id: string, chain = 'c1') => ({ id, chain, outcome: 'failure' as const, reason: 'down', ...settings });

  it('opens at the threshold across chains, refuses until the cooldown, gives one chain the trial, and closes on its success', () => {
    const b = new SharedBreaker(newBreaker('queue:q', 'refunds'));
    expect(b.report(fail('1', 'a'), 0)).toBe(false);
    expect(b.report(fail('1', 'a'), 0)).toBe(false);
    expect(b.view.failures).toBe(1);
    b.report(fail('2', 'b'), 10);
    expect(b.report(fail('3', 'c'), 20)).toBe(true);
    expect(b.view).toMatchObject({
      state: 'open',
      failures: 3,
      until: new Date(1020).toISOString(),
      lastFailure: { chain: 'c' },
    });
    expect(b.ask({ chain: 'd', ...settings }, 500)).toEqual({
      state: 'open',
      failures: 3,
      until: new Date(1020).toISOString(),
    });
    expect(b.ask({ chain: 'd', ...settings }, 1020)).toMatchObject({ state: 'half_open', trial: true });
    expect(b.ask({ chain: 'e', ...settings }, 1100)).toEqual({
      state: 'half_open',
      failures: 3,
      until: new Date(2020).toISOString(),
    });
    expect(b.report({ id: '4', chain: 'd', outcome: 'success', ...settings }, 1200)).toBe(true);
    expect(b.view).toMatchObject({ state: 'closed', failures: 0 });
    expect(b.view.trial).toBeUndefined();
  });

  it('opens again when the trial fails, gives the trial to another chain when it is never reported, and records resets', () => {
    const b = new SharedBreaker({
      ...newBreaker('s', 't', settings),
      state: 'open',
      failures: 3,
      until: new Date(0).toISOString(),
    });
    expect(b.ask({ chain: 'a', ...settings }, 0).trial).toBe(true);
    expect(b.report(fail('x', 'a'), 10)).toBe(true);
    expect(b.view).toMatchObject({ state: 'open', failures: 4, until: new Date(1010).toISOString() });
    expect(b.ask({ chain: 'b', ...settings }, 1010).trial).toBe(true);
    // Chain b never reports: after the trial's time another chain may try.
    expect(b.ask({ chain: 'c', ...settings }, 1500).trial).toBeUndefined();
    expect(b.ask({ chain: 'c', ...settings }, 2010).trial).toBe(true);
    b.reset({ by: 'alice', reason: 'fixed' }, 3000);
    expect(b.view).toMatchObject({
      state: 'closed',
      failures: 0,
      resets: [{ by: 'alice', reason: 'fixed', at: new Date(3000).toISOString() }],
    });
    // A success while closed clears the failures before the threshold.
    b.report(fail('y'), 4000);
    b.report({ id: 'z', chain: 'c1', outcome: 'success', ...settings }, 4001);
    expect(b.view.failures).toBe(0);
  });
});

describe('money in a chain', () => {
  const prices = { metered: { input: 1, output: 1 } };
  const model = { provider: 'scripted', model: 'metered', steps: [], rules: [], requireAllSteps: false } as const;

  function pricedRun(
    options: Parameters<typeof fakeRun>[2],
    spendLimits?: { name: string; limitMicros: number; window: 'day'; onExceeded: 'refuse' | 'wait' }[],
  ) {
    const effects = new FakeEffects({ a: ['answer'] });
    const run = {
      ...fakeRun([agentSpec('a', { model })], effects, options, 'a', 'go', { controls: true }),
      guards: defaultGuards({ emptyOutputCheck: true, controls: true, economics: true, now: effects.now }),
    };
    run.chain.state = withEconomics({
      ...run.chain.state,
      team: { ...run.chain.state.team, economics: { prices, ...(spendLimits ? { spendLimits } : {}) } },
    });
    return { effects, run };
  }

  it('refuses a call whose worst case could pass maxCost before making it, and an unpriced model under a budget', async () => {
    const { effects, run } = pricedRun({ maxCost: 0.004 });
    const worst = worstCaseMicros(run.chain.state, prices.metered);
    expect(worst).toBeGreaterThan(4096);
    expect(run.guards.beforeModelCall(run.chain.state)).toMatchObject({
      kind: 'fail',
      error: { budget: 'cost', limit: 4000, used: 0, needed: worst },
    });
    const unpriced = pricedRun({ maxCost: 1 });
    unpriced.run.chain.state = {
      ...unpriced.run.chain.state,
      team: { ...unpriced.run.chain.state.team, economics: {} },
    };
    expect(unpriced.run.guards.beforeModelCall(unpriced.run.chain.state)).toMatchObject({
      kind: 'fail',
      error: expect.any(PriceUnknownError),
    });
    expect(effects.log).toEqual([]);
  });

  it('reserves the worst case, settles what the call cost, waits for the next window under "wait", and refuses a call bigger than the whole limit', async () => {
    const calls: string[] = [];
    let refuseNext = 1;
    const port: EconomicsEffects = {
      chain: { workflowId: 'wf', runId: 'r1', taskQueue: 'q' },
      waitsOnTimer: () => false,
      reserve: async ({ ledger, request }: ReserveSpendInput) => {
        calls.push(`reserve ${ledger.windowStart} ${request.id} ${request.micros}`);
        const refused = refuseNext-- > 0;
        return {
          ...(refused ? { granted: false } : { granted: true }),
          spentMicros: refused ? 9_000 : 0,
          reservedMicros: 0,
          limitMicros: request.limitMicros,
        };
      },
      settle: async ({ settle }) => void calls.push(`settle ${settle.id} ${settle.micros}`),
      ...{ ask: async () => ({ state: 'closed', failures: 0 }), report: async () => undefined },
    };
    const { effects, run } = pricedRun({}, [{ name: 'daily', limitMicros: 10_000, window: 'day', onExceeded: 'wait' }]);
    const economy = new Economy(port);
    const waiting = economy.beforeCall(run);
    await new Promise((r) => setTimeout(r, 5));
    expect(effects.log).toEqual(['memo control', 'timer 86400000']);
    effects.fireTimer();
    await waiting;
    const worst = worstCaseMicros(run.chain.state, prices.metered);
    expect(calls).toEqual([
      `reserve 2026-01-01T00:00:00.000Z wf/r1#0 ${worst}`,
      `reserve 2026-01-02T00:00:00.000Z wf/r1#0 ${worst}`,
    ]);
    economy.afterCall({ inputTokens: 300, outputTokens: 20 });
    await economy.flush();
    expect(calls.at(-1)).toBe('settle wf/r1#0 320');
    expect(run.chain.state.controls?.counters).toMatchObject({ spend_refused: 1 });

    const tiny = pricedRun({}, [{ name: 'tiny', limitMicros: 10, window: 'day', onExceeded: 'wait' }]);
    refuseNext = 1;
    await expect(new Economy(port).beforeCall(tiny.run)).rejects.toBeInstanceOf(SpendLimitExceededError);
    // A spend limit cannot hold an unpriced model's calls either.
    const unpriced = pricedRun({}, [{ name: 'daily', limitMicros: 10_000, window: 'day', onExceeded: 'refuse' }]);
    unpriced.run.chain.state = {
      ...unpriced.run.chain.state,
      team: {
        ...unpriced.run.chain.state.team,
        economics: { spendLimits: unpriced.run.chain.state.team.economics!.spendLimits! },
      },
    };
    await expect(new Economy(port).beforeCall(unpriced.run)).rejects.toThrow(
      'The spend limit "daily" needs the price of model "metered"',
    );
  });
});
