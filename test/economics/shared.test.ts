import { randomUUID } from 'node:crypto';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Baton, type BatonRun, defineTool, scripted, Team, ToolError } from '../../src';
import {
  askBreakerUpdate,
  ledgerQuery,
  reserveSpendUpdate,
  resetBreakerUpdate,
  settleSpendSignal,
  SpendLimitExceededError,
} from '../../src/economics';
import { scriptedAgent as agent } from '../helpers/agents';
import { breakersCommand, spendCommand } from '../../src/cli/economics';
import type { Command } from '../../src/cli/context';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { TOKENS, withService } from '../server/service';

const server = useTemporalServer();

/** Chains of one tenant started at once; the drill (`npm run drill -- spend`) runs 100. */
const CHAINS = Number(process.env.BATON_SPEND_CHAINS ?? 20);

type Control = { kind: string; control: string } & Record<string, unknown>;

/** A `baton` command run in this process against the test server: its exit code and what it printed. */
async function cli(command: Command, argv: string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const before = process.env.TEMPORAL_ADDRESS;
  process.env.TEMPORAL_ADDRESS = server.env.address;
  try {
    const code = await command.run(argv, {
      out: (l) => lines.push(l),
      err: (l) => lines.push(l),
      interrupted: new Promise(() => undefined),
    });
    return { code, out: lines.join('\n') };
  } finally {
    if (before === undefined) delete process.env.TEMPORAL_ADDRESS;
    else process.env.TEMPORAL_ADDRESS = before;
  }
}
const controlsOf = async (baton: Baton, run: BatonRun) =>
  (await baton.audit(run.workflowId)).events.filter(
    (e) => (e as { kind: string }).kind === 'control',
  ) as unknown as Control[];

describe('economics shared across runs, on a real server', () => {
  it(`holds ${CHAINS} concurrent chains of one tenant to a daily limit: the spend stays within it, the refusals are recorded`, async () => {
    // One micro a token: each chain's one call costs 4000; its reservation is its worst case (input estimate + 4096 output tokens).
    const usage = { inputTokens: 3000, outputTokens: 1000 };
    const limit = 0.05;
    const team = new Team(
      [agent('worker', [], { model: scripted({ model: 'metered', steps: [{ text: 'done', usage }] }) })],
      {
        prices: { metered: { input: 1, output: 1 } },
        spendLimits: [{ name: 'tenant-daily', keyFrom: 'tenant', limit, window: 'day' }],
      },
    );
    const tenant = `acme-${randomUUID()}`;
    await withWorker(server.env, team, async (baton) => {
      const runs = await Promise.all(
        Array.from({ length: CHAINS }, () => baton.start('worker', 'go', { context: { tenant } })),
      );
      const outcomes = await Promise.all(
        runs.map((r) =>
          r.result().then(
            (x) => x,
            (e: unknown) => e,
          ),
        ),
      );
      const done = outcomes.filter((o) => !(o instanceof Error));
      const refused = outcomes.filter((o): o is SpendLimitExceededError => o instanceof SpendLimitExceededError);
      expect(done.length + refused.length).toBe(CHAINS);
      expect(refused.length).toBeGreaterThan(0);
      const worst = refused[0]!.neededMicros;
      expect(
        refused.every(
          (r) => r.neededMicros === worst && r.limit === 'tenant-daily' && r.key === tenant && r.window === 'day',
        ),
      ).toBe(true);
      // Reservations of the worst case, waiting for each other's settles: exactly as many calls as fit, one worst case before the limit.
      const fit = Math.floor((limit * 1e6 - worst) / 4000) + 1;
      expect(done).toHaveLength(fit);
      // Each refusal came when what was spent left no room for another worst case.
      expect(refused.every((r) => r.spentMicros + worst > r.limitMicros && r.spentMicros <= r.limitMicros)).toBe(true);
      const ledgers = await waitFor(
        () => baton.economics.spendLedgers(),
        (l) => l.some((x) => x.key === tenant),
      );
      const ledger = ledgers.find((x) => x.key === tenant)!;
      // The documented bound on the overshoot is what calls cost beyond their reservations: here none.
      expect(ledger).toMatchObject({
        name: 'tenant-daily',
        spentMicros: fit * 4000,
        reservedMicros: 0,
        limitMicros: 50_000,
        granted: fit,
        refused: CHAINS - fit,
        currency: 'USD',
      });
      expect(ledger.spentMicros).toBeLessThanOrEqual(ledger.limitMicros);
      // What an outsider sends a ledger is checked: a bad reservation is refused unrecorded, a bad settle dropped.
      const handle = server.env.client.workflow.getHandle(ledger.workflowId);
      await expect(
        handle.executeUpdate(reserveSpendUpdate, {
          args: [{ id: 'x', chain: 'me', micros: -5, limitMicros: 0, ttlMs: 1 } as never],
        }),
      ).rejects.toMatchObject({
        cause: {
          message: expect.stringContaining(
            'Invalid reservation: "micros" must be an integer from 0 to 1000000000000000; "limitMicros" must be an integer from 1 to 1000000000000000; "ttlMs" must be an integer from 1000',
          ),
        },
      });
      await handle.signal(settleSpendSignal, { id: 'x', micros: -1e6 } as never);
      expect(await handle.query(ledgerQuery)).toMatchObject({ spentMicros: fit * 4000, granted: fit });
      const listed = await cli(spendCommand, []);
      expect(listed.out).toContain(
        `tenant-daily  ${tenant}  day from ${ledger.windowStart}  spent ${(fit * 0.004).toFixed(6)} USD of 0.050000 USD  in flight 0.000000 USD  granted ${fit}  refused ${CHAINS - fit}`,
      );
      const refusedRun = runs[outcomes.indexOf(refused[0]!)]!;
      expect(await controlsOf(baton, refusedRun)).toEqual([
        expect.objectContaining({
          control: 'spend_refused',
          limit: 'tenant-daily',
          key: tenant,
          onExceeded: 'refuse',
          neededMicros: worst,
        }),
      ]);
      // A run without the key the limit is kept by is refused before any call.
      await expect(baton.run('worker', 'go')).rejects.toMatchObject({
        name: 'InvalidRunInputError',
        problems: [expect.stringContaining('"context.tenant" is missing')],
      });
    });
  }, 180_000);

  it('opens a shared breaker on failures in three chains, refuses a fourth chain its handoff, lets one trial through after the cooldown and closes; an operator reset is recorded', async () => {
    let ledgerUp = false;
    const ledger = defineTool({
      name: 'ledger',
      description: 'Write to the ledger',
      parameters: z.object({}),
      execute: () => {
        if (!ledgerUp) throw new ToolError('ledger unavailable');
        return 'written';
      },
    });
    const triage = scripted({
      steps: [{ handoff: { to: 'refunds', message: 'refund please' } }, { text: 'triage answers' }],
      requireAllSteps: false,
    });
    const team = new Team(
      [
        agent('triage', [], { model: triage }),
        agent('refunds', [{ toolCalls: [{ name: 'ledger', arguments: {} }] }, { text: 'refunds done' }], {
          tools: [ledger],
        }),
      ],
      {
        sharedBreakers: { threshold: 3, cooldown: '3 seconds' },
      },
    );
    const registry = new Registry();
    await withService(
      server.env,
      team,
      async ({ baton, queue, call }) => {
        const scope = `queue:${queue}`;
        for (let i = 0; i < 3; i++) expect((await baton.run('triage', `refund ${i}`)).output).toBe('refunds done');
        const open = await waitFor(
          () => baton.economics.breaker(scope, 'refunds'),
          (b) => b?.state === 'open',
        );
        expect(open).toMatchObject({
          failures: 3,
          lastFailure: { reason: expect.stringContaining('ledger unavailable') },
        });

        const fourth = await baton.start('triage', 'refund 4');
        expect((await fourth.result()).output).toBe('triage answers');
        expect(await controlsOf(baton, fourth)).toEqual([
          expect.objectContaining({
            control: 'shared_breaker_refused',
            agent: 'refunds',
            from: 'triage',
            scope,
            failures: 3,
            until: open!.until,
          }),
        ]);
        const listed = await waitFor(
          () => baton.economics.breakers(),
          (l) => l.some((b) => b.target === 'refunds' && b.scope === scope && b.state === 'open'),
        );
        expect(listed.find((b) => b.scope === scope)).toMatchObject({ target: 'refunds', state: 'open', failures: 3 });
        // The HTTP service and the CLI list it too.
        const http = await call('GET', '/v1/breakers', { token: TOKENS.viewer });
        expect(http.status).toBe(200);
        expect(http.body.breakers.find((b: { scope: string }) => b.scope === scope)).toMatchObject({
          target: 'refunds',
          state: 'open',
          failures: 3,
          until: open!.until,
        });
        expect((await cli(breakersCommand, [])).out).toContain(
          `${scope}  refunds  open until ${open!.until}  3 failures`,
        );
        // And the metrics behind the dashboard: its state, and the refusal.
        const gauge = (await registry.getSingleMetric('baton_shared_breaker_state')!.get()).values.filter(
          (v) => v.labels.scope === scope && v.value === 1,
        );
        expect(gauge.map((v) => v.labels.state)).toEqual(['open']);
        expect((await registry.getSingleMetric('baton_shared_breaker_refusals_total')!.get()).values).toEqual([
          expect.objectContaining({ labels: { target: 'refunds' }, value: 1 }),
        ]);

        ledgerUp = true;
        await waitFor(
          async () => Date.now(),
          (now) => now > Date.parse(open!.until!),
          10_000,
        );
        const trial = await baton.start('triage', 'refund 5');
        expect((await trial.result()).output).toBe('refunds done');
        expect((await controlsOf(baton, trial)).map((c) => c.control)).toEqual(['shared_breaker_trial']);
        await waitFor(
          () => baton.economics.breaker(scope, 'refunds'),
          (b) => b?.state === 'closed' && b.failures === 0,
        );

        const breaker = server.env.client.workflow.getHandle(open!.workflowId);
        await expect(
          breaker.executeUpdate(askBreakerUpdate, { args: [{ chain: '', threshold: 0, cooldownMs: 5 }] }),
        ).rejects.toMatchObject({
          cause: { message: expect.stringContaining('Invalid question: "chain" must name the chain asking') },
        });
        await expect(
          breaker.executeUpdate(resetBreakerUpdate, { args: [{ by: 'x'.repeat(201) }] }),
        ).rejects.toMatchObject({
          cause: { message: expect.stringContaining('"by" must name who resets the breaker (1 to 200 characters)') },
        });
        const reset = await baton.economics.resetBreaker(scope, 'refunds', { by: 'alice', reason: 'ledger fixed' });
        expect(reset).toMatchObject({
          state: 'closed',
          resets: [{ by: 'alice', reason: 'ledger fixed', at: expect.any(String) }],
        });
        await expect(baton.economics.resetBreaker(scope, 'nobody', { by: 'alice' })).rejects.toThrow(
          /no shared breaker for "nobody"/,
        );
        await expect(baton.economics.resetBreaker(scope, 'refunds', { by: '' })).rejects.toThrow(/needs "by"/);
        const closed = (await registry.getSingleMetric('baton_shared_breaker_state')!.get()).values.filter(
          (v) => v.labels.scope === scope && v.value === 1,
        );
        expect(closed.map((v) => v.labels.state)).toEqual(['closed']);
        // Over HTTP the reset is the token's identity's; only an operator (admin) may.
        expect(
          (await call('POST', '/v1/breakers/reset', { token: TOKENS.alice, body: { scope, target: 'refunds' } }))
            .status,
        ).toBe(403);
        const byAdmin = await call('POST', '/v1/breakers/reset', {
          token: TOKENS.admin,
          body: { scope, target: 'refunds', reason: 'drill' },
        });
        expect(byAdmin.status).toBe(200);
        expect(byAdmin.body.resets.at(-1)).toMatchObject({ by: 'admin', reason: 'drill' });
        expect(
          (await call('POST', '/v1/breakers/reset', { token: TOKENS.admin, body: { scope, target: 'nobody' } })).status,
        ).toBe(409);
        expect(
          (
            await call('POST', '/v1/breakers/reset', {
              token: TOKENS.admin,
              body: { scope, target: 'refunds', by: 'someone else' },
            })
          ).status,
        ).toBe(400);
        const byCli = await cli(breakersCommand, ['reset', scope, 'refunds', '--as', 'carol', '--reason', 'checked']);
        expect(byCli).toMatchObject({ code: 0, out: expect.stringContaining('reset by carol') });
        expect((await baton.economics.breaker(scope, 'refunds'))!.resets.map((r) => r.by)).toEqual([
          'alice',
          'admin',
          'carol',
        ]);
      },
      { registry },
    );
  }, 120_000);
});
