/**
 * A chain whose reservation must wait for other chains' settles waits on a durable timer of its own
 * (runs that started with the `baton-shared-economics-activities` patch): the `reserveSpend`
 * activity answers "wait" at once instead of asking again and again while the chain waits for it.
 */
import { describe, expect, it } from 'vitest';
import type { ReserveSpendInput } from '../../src/economics';
import type { EconomicsEffects } from '../../workflows/economics/effects';
import { Economy } from '../../workflows/economics/economy';
import { withEconomics } from '../../workflows/economics/costs';
import { defaultGuards } from '../../workflows/guards';
import { agentSpec, FakeEffects, fakeRun } from '../helpers/fakeEffects';

const model = { provider: 'scripted', model: 'metered', steps: [], rules: [], requireAllSteps: false } as const;

describe('a reservation that must wait', () => {
  it('is asked again after a timer, twice as long each time, while the ledger says "wait", and the call goes ahead once it grants', async () => {
    const asked: (boolean | undefined)[] = [];
    let waits = 2;
    const port: EconomicsEffects = {
      chain: { workflowId: 'wf', runId: 'r1', taskQueue: 'q' },
      waitsOnTimer: () => true,
      reserve: async ({ request, chainWaits }: ReserveSpendInput) => {
        asked.push(chainWaits);
        return {
          ...(waits-- > 0 ? { wait: true as const } : { granted: true as const }),
          spentMicros: 0,
          reservedMicros: 9_000,
          limitMicros: request.limitMicros,
        };
      },
      settle: async () => undefined,
      ask: async () => ({ state: 'closed', failures: 0 }),
      report: async () => undefined,
    };
    const effects = new FakeEffects({ a: ['answer'] });
    const run = {
      ...fakeRun([agentSpec('a', { model })], effects, {}, 'a', 'go', { controls: true }),
      guards: defaultGuards({ emptyOutputCheck: true, controls: true, economics: true, now: effects.now }),
    };
    const spendLimits = [
      { name: 'daily', limitMicros: 10_000_000, window: 'day' as const, onExceeded: 'refuse' as const },
    ];
    run.chain.state = withEconomics({
      ...run.chain.state,
      team: { ...run.chain.state.team, economics: { prices: { metered: { input: 1, output: 1 } }, spendLimits } },
    });
    const reserving = new Economy(port).beforeCall(run);
    for (const ms of [500, 1000]) {
      await new Promise((r) => setTimeout(r, 5));
      expect(effects.log.at(-1)).toBe(`timer ${ms}`);
      effects.fireTimer();
    }
    await reserving;
    // Each question says the chain waits on its own timer; waiting is no refusal.
    expect(asked).toEqual([true, true, true]);
    expect(run.chain.state.controls?.counters?.spend_refused).toBeUndefined();
  });
});
