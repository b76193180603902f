/**
 * What a spend limit and shared circuit breakers add to a model call: `npx tsx bench/economics.ts
 * [--reps N] [--handoffs N]`. The same chain (two agents handing off to each other, one model call a
 * step) runs one after another on its own dev server and worker, priced but with nothing shared
 * (the baseline), under a spend limit (a reservation before each call, a settle after), and under a
 * spend limit with shared breakers (also a question to the target's breaker before each handoff).
 * A benchmark, not a test: it prints the median time per model call of each and the difference.
 */
import { parseArgs } from 'node:util';
import { Baton, defineAgent, scripted, Team, type TeamOptions } from '../src';
import type { ScriptedStep } from '../src/workflow';
import { startDevServer } from '../src/devserver/server';
import { createWorker } from '../src/worker';
import { median, round, table, timeRuns } from './lib';

const { values } = parseArgs({
  options: { reps: { type: 'string', default: '10' }, handoffs: { type: 'string', default: '10' } },
});
const reps = Number(values.reps);
const handoffs = Number(values.handoffs);

const hop = (to: string): ScriptedStep => ({
  handoff: { to, message: `over to ${to}` },
  usage: { inputTokens: 500, outputTokens: 50 },
});

/** a → b → a → … for `handoffs` handoffs, then an answer: `handoffs + 1` model calls. */
function team(economics: TeamOptions): Team {
  const aSteps: ScriptedStep[] = [];
  const bSteps: ScriptedStep[] = [];
  for (let i = 0; i < handoffs; i++) (i % 2 === 0 ? aSteps : bSteps).push(hop(i % 2 === 0 ? 'b' : 'a'));
  (handoffs % 2 === 0 ? aSteps : bSteps).push({ text: 'done', usage: { inputTokens: 500, outputTokens: 50 } });
  const model = (steps: ScriptedStep[]) => scripted({ model: 'metered', steps });
  return new Team(
    [
      defineAgent({ id: 'a', instructions: 'A', model: model(aSteps) }),
      defineAgent({ id: 'b', instructions: 'B', model: model(bSteps) }),
    ],
    { prices: { metered: { input: 1, output: 1 } }, ...economics },
  );
}

const CONFIGS: { name: string; economics: TeamOptions }[] = [
  { name: 'priced, nothing shared (baseline)', economics: {} },
  // Each its own ledger: a ledger runs on the task queue of the worker that first asked it.
  { name: 'spend limit', economics: { spendLimits: [{ name: 'bench-limit', limit: 1_000_000, window: 'day' }] } },
  {
    name: 'spend limit + shared breakers',
    economics: {
      spendLimits: [{ name: 'bench-limit-breakers', limit: 1_000_000, window: 'day' }],
      sharedBreakers: true,
    },
  },
];

async function main(): Promise<void> {
  const env = await startDevServer();
  const rows: Record<string, string | number>[] = [];
  try {
    let baseline = NaN;
    for (const [i, config] of CONFIGS.entries()) {
      const taskQueue = `bench-economics-${i}-${Date.now()}`;
      const worker = await createWorker({ team: team(config.economics), connection: env.nativeConnection, taskQueue });
      const baton = new Baton({ client: env.client, taskQueue });
      const times = await worker.runUntil(
        timeRuns(reps, () => baton.run('a', 'go', { loopWindow: 0, maxHandoffs: handoffs })),
      );
      const perCall = median(times) / (handoffs + 1);
      if (i === 0) baseline = perCall;
      rows.push({
        chain: config.name,
        'median per model call (ms)': round(perCall, 1),
        'added per model call (ms)': i === 0 ? '' : round(perCall - baseline, 1),
        ratio: round(perCall / baseline, 2),
      });
      console.error(`${config.name}: ${round(perCall, 1)} ms per model call`);
    }
  } finally {
    await env.teardown();
  }
  console.log(`\n${reps} chains of ${handoffs} handoffs (${handoffs + 1} model calls) each, one after another\n`);
  console.log(table(rows));
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
