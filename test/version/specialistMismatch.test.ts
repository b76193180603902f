/**
 * A specialist waits for a worker of its team as long as the chain that delegated to it would
 * (`teamMismatchTimeout`), not baton's default ten minutes: with the team gone, the chain fails
 * with `TeamMismatchError` naming the delegation within its own timeout.
 */
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { Baton, defineTool, delegate, Team } from '../../src';
import { TeamMismatchError } from '../../src/workflow';
import { createWorker } from '../../src/worker';
import { scriptedAgent as agent } from '../helpers/agents';
import { taskQueue, useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const server = useTemporalServer();

/** v1 and v2 differ in the specialist's instructions only: the desk's steps run on either, a specialist of a v1 chain on v1 only. */
function team(v: 'v1' | 'v2'): Team {
  const check = defineTool({
    name: 'check',
    description: 'Check an order',
    parameters: z.object({ order: z.string() }),
    needsApproval: true,
    execute: ({ order }) => `${order} ok`,
  });
  const desk = agent(
    'desk',
    [
      { toolCalls: [{ name: 'check', arguments: { order: 'A1' } }] },
      { toolCalls: [{ name: 'delegate', arguments: { to: 'helper', task: 'look into A1', reason: 'it knows' } }] },
      { text: 'done' },
    ],
    { tools: [check], handoffs: [delegate('helper')] },
  );
  const helper = agent('helper', [{ text: 'helped' }], { description: 'Helps', instructions: `Help (${v}).` });
  return new Team([desk, helper], { name: 'desk', version: v });
}

async function worker(v: 'v1' | 'v2', queue: string) {
  const w = await createWorker({
    team: team(v),
    connection: server.env.nativeConnection,
    taskQueue: queue,
    worker: {
      workerDeploymentOptions: { useWorkerVersioning: false, version: { deploymentName: 'desk', buildId: v } },
    },
  });
  const done = w.run();
  return { stop: async () => (w.getState() === 'RUNNING' && w.shutdown(), await done) };
}

describe('a specialist whose team is gone', () => {
  it("strands its caller for the caller's teamMismatchTimeout only", { timeout: 120_000 }, async () => {
    const queue = taskQueue();
    const baton = new Baton({ client: server.env.client, taskQueue: queue });
    const v1 = await worker('v1', queue);
    const run = await baton.start('desk', 'check A1, then ask the helper', { teamMismatchTimeout: '2 seconds' });
    const [waiting] = await waitFor(
      () => run.pendingApprovals(),
      (w) => w.length === 1,
    );
    await v1.stop();
    const v2 = await worker('v2', queue);
    try {
      const asked = Date.now();
      await baton.approve(run.workflowId, { approvalId: waiting!.handoffId, approver: 'alice' });
      // The check and the desk's model call run on v2; the specialist, on v1's team, is refused by v2.
      // Before: the specialist waited baton's default ten minutes for a worker of v1, and its caller with it.
      const late = new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('the chain did not end within 60 s of the approval')), 60_000).unref(),
      );
      const failure = await Promise.race([run.result(), late]).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(failure).toBeInstanceOf(TeamMismatchError);
      expect(failure).toMatchObject({
        version: 'desk@v1',
        worker: 'desk@v2',
        step: expect.stringContaining('delegation to helper'),
      });
      expect((failure as TeamMismatchError).message).toContain('within 2 s');
      expect(Date.now() - asked).toBeLessThan(45_000);
    } finally {
      await v2.stop();
    }
  });
});
