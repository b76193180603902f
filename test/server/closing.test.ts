/**
 * A service that closes ends the Temporal calls it made for its streams: an application that closes
 * the service, then its connection, then loses the server (a shutdown, a test's teardown) goes on
 * running. A call left in flight failed when the server went (UNAVAILABLE), the client retried it on
 * a timer, and the retry, on the closed connection, threw "Channel has been shut down" out of that
 * timer: an uncaught exception that ended the process.
 */
import { describe, expect, it } from 'vitest';
import { Baton } from '../../src/client/baton';
import { type DevServer, startDevServer } from '../../src/devserver/server';
import { serveBaton } from '../../src/server';
import { withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { STATIC_TOKENS, TOKENS } from './service';
import { connectSse } from './sse';
import { refundTeam } from './team';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A chain waiting for alice's approval, its worker stopped; the task queue it ran on. */
function waitingChain(env: DevServer): Promise<string> {
  return withWorker(env, refundTeam(), async (baton, queue) => {
    const run = await baton.start('triage', 'My order 42 arrived broken.');
    await waitFor(
      () => run.pendingApprovals(),
      (p) => p.length === 1,
    );
    return queue;
  });
}

describe('a closing service', () => {
  it('ends the reads its live inbox has in flight, so closing its connection and losing the server leave nothing to retry', async () => {
    const env = await startDevServer();
    // A chain waiting for alice whose worker is gone: the inbox's query of the chain waits (2 s) for one.
    const queue = await waitingChain(env);
    const baton = new Baton({ client: env.client, taskQueue: queue });
    const service = await serveBaton({
      baton,
      auth: { tokens: STATIC_TOKENS },
      port: 0,
      host: '127.0.0.1',
      metrics: false,
      approvalsPollMs: 200,
      log: () => undefined,
    });
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    try {
      const stream = await connectSse(`${service.url}/v1/approvals/events`, {
        authorization: `Bearer ${TOKENS.alice}`,
      });
      expect(stream.status).toBe(200);
      // The feed has listed the waiting approval; the chain's query waits for a worker.
      await sleep(800);
      await service.close();
      // The connections closed, then the server stopped.
      await env.teardown();
      // Past the client's first retry (100 ms) and the query's deadline.
      await sleep(3_000);
      stream.close();
    } finally {
      process.off('uncaughtException', onUncaught);
    }
    expect(uncaught).toEqual([]);
  });

  it('a call in flight on a connection baton made, when the connection closes and the server goes, fails to its caller and throws nowhere else', async () => {
    const env = await startDevServer();
    const queue = await waitingChain(env);
    const [waiting] = await new Baton({ client: env.client, taskQueue: queue }).pending();
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    try {
      // No worker answers the query: it is in flight when the connection closes and the server stops.
      const query = env.client.workflow
        .getHandle(waiting!.workflowId)
        .query('chain')
        .then(
          () => 'answered',
          (err: Error & { cause?: { code?: number; details?: string } }) => err.cause?.details ?? err.message,
        );
      await sleep(300);
      await env.teardown();
      expect(await query).toContain('the connection was closed before the call was retried');
      await sleep(1_000);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
    expect(uncaught).toEqual([]);
  });
});
