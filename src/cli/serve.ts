import type { NativeConnection } from '@temporalio/worker';
import type { createWorker as CreateWorker } from '../worker';
import { Interrupted, interruptible } from './context';
import { installCliRuntime } from './runtime';
import type { TeamModule } from './team';

/** Options of {@link untilDone}. */
export interface UntilDoneOptions {
  /** Serve this team in this process while the work runs; without it, another worker must. */
  team?: TeamModule;
  /** The worker's connection, opened only when there is a team to serve. */
  connection: () => Promise<NativeConnection>;
  taskQueue: string;
  /** The first SIGINT or SIGTERM. */
  interrupted: Promise<NodeJS.Signals>;
}

/** How long an interrupted command waits for its in-process worker to shut down before it exits anyway. */
const WORKER_STOP_WAIT_MS = 3_000;

/**
 * Run `work` to its end, with a worker for the team polling in this process meanwhile when a team
 * is given. An interrupt stops both at once: the worker is asked to shut down (waited for a few
 * seconds at most) and {@link Interrupted} is thrown; the chain itself stays in Temporal.
 */
export async function untilDone<T>(work: () => Promise<T>, options: UntilDoneOptions): Promise<T> {
  const { team, interrupted } = options;
  if (!team) return interruptible(work(), interrupted);
  // The worker package is loaded only to serve a team here, and Temporal's runtime installed before the
  // worker's connection; every command that calls this prints a failed chain's error itself.
  const { createWorker } = require('../worker') as { createWorker: typeof CreateWorker };
  installCliRuntime(true);
  const connection = await interruptible(options.connection(), interrupted);
  const worker = await interruptible(
    createWorker({ team: team.team, hooks: team.hooks, connection, taskQueue: options.taskQueue }),
    interrupted,
  );
  const running = worker.runUntil(work);
  try {
    return await interruptible(running, interrupted);
  } catch (err) {
    if (err instanceof Interrupted) {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await Promise.race([
        running.catch(() => undefined),
        new Promise((resolve) => setTimeout(resolve, WORKER_STOP_WAIT_MS).unref()),
      ]);
    }
    throw err;
  }
}
