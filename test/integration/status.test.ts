/** `BatonStatus` tells the truth about the run that carries it, closed runs included. */
import { describe, expect, it } from 'vitest';
import { defineAgent, scripted, Team } from '../../src';
import { BatonStatus } from '../../src/workflow';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const server = useTemporalServer();

const runsOf = async (workflowId: string) => {
  const runs: { runId: string; status: string; baton: unknown }[] = [];
  for await (const wf of server.env.client.workflow.list({ query: `WorkflowId = "${workflowId}"` })) {
    runs.push({ runId: wf.runId, status: wf.status.name, baton: wf.searchAttributes?.BatonStatus?.[0] });
  }
  return runs;
};

describe('BatonStatus', () => {
  it('ends each continued run with continued_as_new, so only the live run matches awaiting_approval', async () => {
    const team = new Team([
      defineAgent({ id: 'a', instructions: 'A', model: scripted([{ handoff: { to: 'b', message: 'needs a yes' } }]) }),
      defineAgent({
        id: 'b',
        instructions: 'B',
        model: scripted([{ text: 'done' }]),
        approval: { approvers: ['alice'] },
      }),
    ]);
    await withWorker(server.env, team, async (baton) => {
      const run = await baton.start('a', 'go', { continueAsNewAfterEvents: 60 });
      const [pending] = await waitFor(
        () => run.pendingApprovals(),
        (p) => p.length === 1,
      );
      const firstRunId = (await run.handle.describe()).runId;
      // Refused decisions grow the history until the waiting run continues as new.
      while ((await run.handle.describe()).runId === firstRunId)
        await run.handle.signal('approveHandoff', { handoffId: pending!.handoffId, approver: 'mallory' });

      const runs = await waitFor(
        () => runsOf(run.workflowId),
        (r) =>
          r.length >= 2 &&
          r.every((x) => x.baton !== undefined) &&
          r.some((x) => x.status === 'RUNNING' && x.baton === BatonStatus.AWAITING_APPROVAL),
      );
      for (const closed of runs.filter((r) => r.status === 'CONTINUED_AS_NEW'))
        expect(closed.baton).toBe(BatonStatus.CONTINUED_AS_NEW);
      const awaiting = await waitFor(
        async () => {
          const found: string[] = [];
          for await (const wf of server.env.client.workflow.list({
            query: `WorkflowId = "${run.workflowId}" AND BatonStatus = "awaiting_approval"`,
          }))
            found.push(wf.runId);
          return found;
        },
        (found) => found.length === 1,
      );
      expect(awaiting).toEqual([(await run.handle.describe()).runId]);
      expect(await baton.pending()).toEqual(
        expect.arrayContaining([expect.objectContaining({ workflowId: run.workflowId, runId: awaiting[0] })]),
      );

      await baton.approve(run.workflowId, pending!.handoffId, { approver: 'alice' });
      await run.result();
      const final = await waitFor(
        () => runsOf(run.workflowId),
        (r) => r.some((x) => x.status === 'COMPLETED' && x.baton === BatonStatus.COMPLETED),
      );
      expect(final.filter((r) => r.baton === BatonStatus.AWAITING_APPROVAL)).toEqual([]);
    });
  });

  it('marks a cancelled run cancelled', async () => {
    const team = new Team([
      defineAgent({ id: 'a', instructions: 'A', model: scripted([{ text: 'late', delayMs: 30_000 }]) }),
    ]);
    await withWorker(server.env, team, async (baton) => {
      const run = await baton.start('a', 'go');
      await waitFor(
        () => run.status(),
        (s) => s.turns === 1,
      );
      await run.handle.cancel();
      await expect(run.result()).rejects.toThrow();
      const [only] = await waitFor(
        () => runsOf(run.workflowId),
        (r) => r[0]?.status === 'CANCELLED' && r[0]?.baton === BatonStatus.CANCELLED,
      );
      expect(only?.baton).toBe('cancelled');
    });
  });
});
