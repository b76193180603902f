/**
 * The spend drill: `--spend-chains` chains (100 by default) of one tenant start at once under a
 * daily spend limit; each makes one model call of a known cost. It checks what docs/economics.md
 * promises: the spend never passes the limit by more than the calls' costs beyond their
 * reservations (here none, so not at all), exactly as many chains as fit answer, and every other
 * one is refused with `SpendLimitExceededError` and the refusal on its record.
 */
import { randomUUID } from 'node:crypto';
import { Baton, defineAgent, scripted, Team } from '../src';
import { SpendLimitExceededError } from '../src/economics';
import { startDevServer } from '../src/devserver/server';
import { createWorker } from '../src/worker';
import type { DrillSettings } from './run';
import type { DrillReport } from './sigkill';

/** One micro a token: each call costs 4000 micros; the limit holds a dozen of them. */
const USAGE = { inputTokens: 3000, outputTokens: 1000 };
const CALL_MICROS = 4000;
const LIMIT = 0.05;
const AUDITS_AT_ONCE = 16;

/** `work(0)` … `work(n - 1)`, at most `atOnce` at a time; the results in order. */
async function inTurns<T>(n: number, atOnce: number, work: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array<T>(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(atOnce, n) }, async () => {
      for (let i = next++; i < n; i = next++) results[i] = await work(i);
    }),
  );
  return results;
}

export async function spendDrill(settings: DrillSettings & { spendChains: number }): Promise<DrillReport> {
  const env = await startDevServer();
  const problems: string[] = [];
  try {
    const team = new Team(
      [
        defineAgent({
          id: 'worker',
          instructions: 'Work.',
          model: scripted({ model: 'metered', steps: [{ text: 'done', usage: USAGE }] }),
        }),
      ],
      {
        prices: { metered: { input: 1, output: 1 } },
        spendLimits: [{ name: 'tenant-daily', keyFrom: 'tenant', limit: LIMIT, window: 'day' }],
      },
    );
    const taskQueue = `drill-spend-${randomUUID()}`;
    const worker = await createWorker({ team, connection: env.nativeConnection, taskQueue });
    const baton = new Baton({ client: env.client, taskQueue });
    const tenant = `drill-${randomUUID()}`;
    const started = Date.now();
    const outcomes = await worker.runUntil(async () => {
      const runs = await Promise.all(
        Array.from({ length: settings.spendChains }, () => baton.start('worker', 'go', { context: { tenant } })),
      );
      const ended = await Promise.all(
        runs.map((r) =>
          r.result().then(
            (x) => x,
            (e: unknown) => e,
          ),
        ),
      );
      const ledger = (await baton.economics.spendLedgers()).find((l) => l.key === tenant);
      // A few audits at a time: hundreds of history reads at once time out on a dev server.
      const recorded = await inTurns(runs.length, AUDITS_AT_ONCE, async (i) =>
        ended[i] instanceof SpendLimitExceededError
          ? (await baton.audit(runs[i]!.workflowId)).events.some(
              (e) => e.kind === 'control' && e.control === 'spend_refused',
            )
          : true,
      );
      return { ended, ledger, recorded };
    });
    const answered = outcomes.ended.filter((o) => !(o instanceof Error)).length;
    const refused = outcomes.ended.filter((o): o is SpendLimitExceededError => o instanceof SpendLimitExceededError);
    const other = settings.spendChains - answered - refused.length;
    const worst = refused[0]?.neededMicros;
    const fit =
      worst === undefined
        ? settings.spendChains
        : Math.min(settings.spendChains, Math.floor((LIMIT * 1e6 - worst) / CALL_MICROS) + 1);
    const spent = outcomes.ledger?.spentMicros;
    if (other > 0) {
      const why = [
        ...new Set(
          outcomes.ended
            .filter((o) => o instanceof Error && !(o instanceof SpendLimitExceededError))
            .map((e) => `${(e as Error).name}: ${(e as Error).message}`.slice(0, 300)),
        ),
      ];
      problems.push(
        `${other} chains neither answered nor were refused by the spend limit (${why.slice(0, 3).join(' | ')})`,
      );
    }
    if (answered !== fit) problems.push(`${answered} chains answered; ${fit} calls fit the limit`);
    if (spent === undefined) problems.push("the tenant's ledger was not found");
    else if (spent > LIMIT * 1e6) problems.push(`spent ${spent} micros, over the limit of ${LIMIT * 1e6}`);
    if (spent !== undefined && spent !== answered * CALL_MICROS)
      problems.push(`the ledger has ${spent} micros spent, the chains ${answered * CALL_MICROS}`);
    if (outcomes.recorded.some((r) => !r)) problems.push('a refused chain has no spend_refused on its record');
    return {
      title: `spend: ${settings.spendChains} chains of one tenant at once under a daily limit of ${LIMIT} USD`,
      summary: {
        drill: 'spend',
        chains: settings.spendChains,
        answered,
        refused: refused.length,
        'spent (micros)': spent,
        'limit (micros)': LIMIT * 1e6,
        overshoot: spent === undefined ? undefined : Math.max(0, spent - LIMIT * 1e6),
        seconds: Math.round((Date.now() - started) / 100) / 10,
        problems: problems.length,
      },
      faults: [
        {
          'reservation (worst case, micros)': worst,
          'a call costs (micros)': CALL_MICROS,
          'calls that fit': fit,
          'granted by the ledger': outcomes.ledger?.granted,
          'refused by the ledger': outcomes.ledger?.refused,
        },
      ],
      problems,
    };
  } finally {
    await env.teardown();
  }
}
