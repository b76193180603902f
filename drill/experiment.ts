/**
 * The experiment drill: `--experiment-chains` chains (200 by default) split by an experiment
 * between two versions of a team on two task queues, on a dev server of its own; the per-variant
 * figures of `baton stats --experiment` are checked against a count made from each chain's history.
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { startDevServer } from '../src/devserver/server';
import { runExperimentScenario } from '../test/helpers/experimentScenario';
import { seconds } from './report';
import type { DrillReport } from './sigkill';

/** Run the scenario once and report it. */
export async function experimentDrill(settings: { experimentChains: number }): Promise<DrillReport> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const env = await startDevServer();
  try {
    const run = await runExperimentScenario(env, settings.experimentChains, {
      a: 'drill-experiment-a',
      b: 'drill-experiment-b',
    });
    const rows = run.stats.variants.map((v, i) => {
      const t = run.truth[i === 0 ? 'a' : 'b'];
      return {
        variant: v.variant,
        chains: v.chains,
        'completed (history)': `${v.completed} (${t.completed})`,
        'failed (history)': `${v.failed} (${t.failed})`,
        'guardrail trips (history)': `${v.guardrailTrips.total} (${t.trips})`,
        'tokens (history)': `${v.tokens.total} (${t.tokens})`,
        'latency p50': seconds(v.latencyMs.p50),
        p95: seconds(v.latencyMs.p95),
      };
    });
    const test = run.stats.comparisons[0]?.successRate;
    return {
      title: `experiment: ${settings.experimentChains} chains split between two team versions`,
      summary: {
        drill: 'experiment',
        chains: settings.experimentChains,
        'chains took': seconds(run.chainsMs),
        'figures took': seconds(run.statsMs),
        'success rate test': test
          ? `${test.test}, difference ${(test.statistic * 100).toFixed(1)} points, p=${test.p.toFixed(4)}${test.significant ? ' significant' : ''}`
          : undefined,
        problems: run.problems.length,
      },
      faults: rows,
      problems: run.problems,
      details: { experiment: run.experiment, truth: run.truth, stats: run.stats },
    };
  } finally {
    await env.teardown();
  }
}
