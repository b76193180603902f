import { describe, expect, it } from 'vitest';
import { redeploy, type RedeployMode } from '../../drill/redeploy/run';
import { useTemporalServer } from '../helpers/temporal';

// The redeploy drill's three scenarios, small: a chain of each kind waiting for a person, a
// conversation between turns, a chain started after the deploy.
describe('redeploying a team while chains wait', () => {
  const server = useTemporalServer();

  const run = (mode: RedeployMode) =>
    redeploy({
      mode,
      client: server.env.client,
      connection: server.env.nativeConnection,
      mismatchTimeout: '3 seconds',
      deadlineMs: 60_000,
    });

  it('with v1 gone, every stranded chain fails with TeamMismatchError naming what is missing, and completes after a migration', async () => {
    const report = await run('v1_gone');
    expect(report.problems).toEqual([]);
    expect(report.failedMismatch).toBe(4);
    expect(report).toMatchObject({ chains: 6, lost: 0, repeatedApprovals: 0 });
  });

  it('with v1 draining, v1 chains complete on v1 and new chains and the next turn on v2', async () => {
    const report = await run('drain');
    expect(report.problems).toEqual([]);
    expect(report).toMatchObject({
      chains: 6,
      completedOnV1: 4,
      completedOnV2: 2,
      failedMismatch: 0,
      lost: 0,
      repeatedApprovals: 0,
    });
  });

  it('side by side on one task queue, each step runs on a worker that has its team', async () => {
    const report = await run('side_by_side');
    expect(report.problems).toEqual([]);
    expect(report).toMatchObject({ chains: 6, failedMismatch: 0, lost: 0, repeatedApprovals: 0 });
    // The four chains waiting on v1 completed on v1 (the runner checks each); the new chain and the conversation's next turn on either.
    expect(report.completedOnV1).toBeGreaterThanOrEqual(4);
  });
});
