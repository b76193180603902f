/**
 * A load drill worker: a child process serving the load team, reporting to its parent (over the
 * IPC channel) when it is ready and, every `LOAD_SAMPLE_MS`, its memory and how many workflows
 * it holds in its cache.
 *
 * Environment: `TEMPORAL_ADDRESS`, `DRILL_TASK_QUEUE`, `DRILL_IDENTITY`, `LOAD_MAX_CACHED_WORKFLOWS`
 * (the worker's `maxCachedWorkflows`; the SDK's default when unset), `LOAD_SAMPLE_MS` (500).
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createWorker } from '../src';
import { loadTeam } from './loadTeam';

/** What a load worker tells its parent. */
export type LoadWorkerReport =
  | { type: 'ready'; identity: string; maxCachedWorkflows: number }
  | { type: 'sample'; at: number; rss: number; heapUsed: number; cached: number; state: string };

function report(message: LoadWorkerReport): void {
  process.send?.(message);
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const identity = process.env.DRILL_IDENTITY ?? `load-worker@${process.pid}`;
  const cache = process.env.LOAD_MAX_CACHED_WORKFLOWS;
  const worker = await createWorker({
    team: loadTeam,
    taskQueue: process.env.DRILL_TASK_QUEUE,
    worker: { identity, ...(cache ? { maxCachedWorkflows: Number(cache) } : {}) },
  });
  const sample = () => {
    const status = worker.getStatus();
    const memory = process.memoryUsage();
    report({
      type: 'sample',
      at: Date.now(),
      rss: memory.rss,
      heapUsed: memory.heapUsed,
      cached: status.numCachedWorkflows,
      state: worker.getState(),
    });
  };
  const timer = setInterval(sample, Number(process.env.LOAD_SAMPLE_MS ?? 500));
  report({ type: 'ready', identity, maxCachedWorkflows: worker.options.maxCachedWorkflows });
  sample();
  try {
    await worker.run();
  } finally {
    clearInterval(timer);
  }
}

// The parent going away (a finished or interrupted drill) ends its workers too.
process.on('disconnect', () => process.exit(0));

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
