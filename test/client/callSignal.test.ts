/**
 * withCallsAborted (src/client/callSignal.ts) on a real server: a stream's long-lived signal ends
 * its calls and keeps none of them.
 */
import { getEventListeners, setMaxListeners } from 'node:events';
import { isGrpcCancelledError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { withCallsAborted } from '../../src/client/callSignal';
import { streamRun } from '../../src/client/follow';
import { inProcessStreams } from '../../src/streams/memory';
import { taskQueue, useTemporalServer } from '../helpers/temporal';

const server = useTemporalServer();

describe('withCallsAborted', () => {
  it("leaves no listener on the caller's signal, where Temporal's client leaves one a call", async () => {
    const { client } = server.env;
    const kept = new AbortController();
    // The 30 listeners below are what the test shows; Node would warn past 10.
    setMaxListeners(0, kept.signal);
    const released = new AbortController();
    for (let i = 0; i < 30; i++) {
      await client.connection.withAbortSignal(kept.signal, () => client.workflowService.getSystemInfo({}));
      await withCallsAborted(client.connection, released.signal, () => client.workflowService.getSystemInfo({}));
    }
    expect(getEventListeners(kept.signal, 'abort')).toHaveLength(30);
    expect(getEventListeners(released.signal, 'abort')).toHaveLength(0);
  });

  it('cancels a long-poll in flight when the signal aborts, and a call started after it aborted', async () => {
    const { client } = server.env;
    // A workflow no worker polls for: its history gets no new event, so the long-poll waits.
    const handle = await client.workflow.start('noWorkerPolls', {
      taskQueue: taskQueue(),
      workflowId: `poll-${Date.now()}`,
    });
    const longPoll = (nextPageToken: Uint8Array | null | undefined) =>
      client.workflowService.getWorkflowExecutionHistory({
        namespace: client.options.namespace,
        execution: { workflowId: handle.workflowId },
        nextPageToken,
        waitNewEvent: true,
      });
    const first = await longPoll(new Uint8Array());
    const abort = new AbortController();
    const waiting = withCallsAborted(client.connection, abort.signal, () => longPoll(first.nextPageToken));
    const started = Date.now();
    setTimeout(() => abort.abort(), 300);
    const err = await waiting.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(first.history?.events?.length).toBeGreaterThan(0);
    expect(first.nextPageToken?.length).toBeGreaterThan(0);
    expect(isGrpcCancelledError(err)).toBe(true);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(getEventListeners(abort.signal, 'abort')).toHaveLength(0);

    const late = await withCallsAborted(client.connection, abort.signal, () =>
      client.workflowService.getSystemInfo({}),
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isGrpcCancelledError(late)).toBe(true);
    await handle.terminate();
  });

  it('a follower given a signal that has aborted already stops at once', async () => {
    const { client } = server.env;
    const handle = await client.workflow.start('noWorkerPolls', {
      taskQueue: taskQueue(),
      workflowId: `gone-${Date.now()}`,
    });
    const abort = new AbortController();
    abort.abort();
    const started = Date.now();
    const items = [];
    for await (const item of streamRun(client.workflow, inProcessStreams(), handle.workflowId, undefined, {
      signal: abort.signal,
    }))
      items.push(item);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(items.filter((i) => i.kind !== 'text_unavailable')).toEqual([]);
    await handle.terminate();
  });
});
