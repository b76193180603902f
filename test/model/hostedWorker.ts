/**
 * A worker the harness hosts in its own process beside the system's workers (the archive's, the
 * remote team's): started with its own connection, stopped with both.
 */
import type { NativeConnection, Worker } from '@temporalio/worker';

/** A running worker and the connection it owns. */
export interface HostedWorker {
  worker: Worker;
  running: Promise<void>;
  connection: NativeConnection;
}

/** Run `worker`, which owns `connection`. */
export function hostWorker(worker: Worker, connection: NativeConnection): HostedWorker {
  return { worker, connection, running: worker.run() };
}

/** Shut the worker down, wait for it to stop and close its connection. */
export async function stopHostedWorker(w: HostedWorker | undefined): Promise<void> {
  if (!w) return;
  w.worker.shutdown();
  await w.running.catch(() => undefined);
  await w.connection.close().catch(() => undefined);
}
