/**
 * What an approved handoff costs on Temporal Cloud, in actions, counted on a real server from the
 * chain's history and the heartbeats and queries the server's own metric saw: with a 5-second
 * streamed model call and the default 3 s heartbeat timeout, an approved handoff adds at most 6
 * (its model call, two heartbeats, the approval's update, and one search-attribute upsert as it
 * waits and one as it goes on).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startDevServer, type DevServer } from '../../src/devserver/server';
import { approvedChainActions } from '../helpers/actions';
import { startOpenAIServer } from '../helpers/openaiServer';
import { taskQueue } from '../helpers/temporal';

let server: DevServer;
let fake: Awaited<ReturnType<typeof startOpenAIServer>>;
beforeAll(async () => {
  server = await startDevServer({ metricsPort: await freePort() });
  fake = await startOpenAIServer();
});
afterAll(async () => {
  await fake?.close();
  await server?.teardown();
});

describe('actions per approved handoff', () => {
  it('stays within 6 with a 5-second streamed model call, heartbeats never per chunk', async () => {
    const one = await approvedChainActions(server, fake, { handoffs: 1, callMs: 5_000, taskQueue: taskQueue() });
    const two = await approvedChainActions(server, fake, { handoffs: 2, callMs: 5_000, taskQueue: taskQueue() });
    const perHandoff = two.total - one.total;
    expect(perHandoff).toBeLessThanOrEqual(6);
    // Each 5-second call reached the server twice (2 s and 4 s into it, a second inside the 3 s timeout), not per chunk.
    expect(one.heartbeats).toBe(4);
    expect(two.heartbeats).toBe(6);
    // The approvals were read from the chain's memo, not by queries; each was one update.
    expect(two.queries).toBe(0);
    expect(two.history.updates).toBe(2);
    expect(two.history.activityAttempts - one.history.activityAttempts).toBe(1);
    expect(two.history.searchAttributeUpserts - one.history.searchAttributeUpserts).toBeLessThanOrEqual(2);
    // The worker's baton_temporal_actions_total counts what the server recorded, action for action.
    expect(one.workerCounted).toBe(one.total);
    expect(two.workerCounted).toBe(two.total);
  }, 180_000);
});
