import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import type { Team } from '../../src/agents/team';
import { Baton } from '../../src/client/baton';
import { type DevServer, type DevServerOptions, startDevServer } from '../../src/devserver/server';
import { createWorker, type CreateWorkerOptions } from '../../src/worker';

/** One real Temporal dev server for the test file (with `options`, e.g. dynamic config). */
export function useTemporalServer(options: DevServerOptions = {}): { readonly env: DevServer } {
  const holder: { env?: DevServer } = {};
  beforeAll(async () => {
    holder.env = await startDevServer(options);
  });
  afterAll(async () => {
    await holder.env?.teardown();
  });
  return {
    get env() {
      if (!holder.env) throw new Error('the Temporal server is not up yet');
      return holder.env;
    },
  };
}

/** A fresh task queue, so each test has its own worker. */
export function taskQueue(): string {
  return `test-${randomUUID()}`;
}

/** Run `fn` while a worker for `team` polls a task queue of its own. */
export async function withWorker<T>(
  env: DevServer,
  team: Team,
  fn: (baton: Baton, queue: string) => Promise<T>,
  options: Partial<CreateWorkerOptions> = {},
): Promise<T> {
  const queue = options.taskQueue ?? taskQueue();
  const worker = await createWorker({ team, connection: env.nativeConnection, taskQueue: queue, ...options });
  return worker.runUntil(fn(new Baton({ client: env.client, taskQueue: queue }), queue));
}
