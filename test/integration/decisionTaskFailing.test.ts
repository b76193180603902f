/**
 * A decision sent while its chain's workflow task is being retried, on a real server: Temporal
 * refuses updates meanwhile (FAILED_PRECONDITION, "Workflow Task in failed state"), which refuses
 * nothing the approver asked. `baton.approve` sends it again until a worker completes a task, and
 * the decision is taken then, not lost to a bare ServiceError.
 */
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createWorker, defineTool, Team } from '../../src';
import { approveHandoffSignal } from '../../src/workflow';
import { Baton } from '../../src/client/baton';
import { scriptedAgent as agent } from '../helpers/agents';
import { recordingScripted } from '../helpers/models';
import { taskQueue, useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const server = useTemporalServer();

const refund = defineTool({
  name: 'refund',
  description: 'Refund an order',
  parameters: z.object({ orderId: z.string() }),
  needsApproval: { approvers: ['alice'] },
  execute: ({ orderId }) => `refunded ${orderId}`,
});

describe('a decision while its chain’s workflow task is being retried', () => {
  it('is sent again until a worker completes a task, and taken', { timeout: 150_000 }, async () => {
    const queue = taskQueue();
    const team = () =>
      new Team([
        agent('desk', [{ toolCalls: [{ name: 'refund', arguments: { orderId: '7' } }] }, { text: 'refunded' }], {
          tools: [refund],
        }),
      ]);
    const baton = new Baton({ client: server.env.client, taskQueue: queue });
    const serve = async () =>
      createWorker({
        team: team(),
        connection: server.env.nativeConnection,
        taskQueue: queue,
        providers: recordingScripted().providers,
      });
    const first = await serve();
    const { run, waiting } = await first.runUntil(async () => {
      const started = await baton.start('desk', 'refund order 7');
      const [pending] = await waitFor(
        () => started.pendingApprovals(),
        (p) => p.length === 1,
      );
      return { run: started, waiting: pending };
    });
    // A worker that fails every task of the chain now serves its queue: the next task fails, and is retried.
    const failing = await Worker.create({
      connection: server.env.nativeConnection,
      taskQueue: queue,
      workflowsPath: path.join(__dirname, '../server/fixtures/failingTask.ts'),
    });
    const failingRun = failing.run();
    // Anything that arrives makes a task: a refused decision by signal will do.
    await run.handle.signal(approveHandoffSignal, { handoffId: 'no-such-approval', approver: 'mallory' });
    await waitFor(
      () => run.handle.describe().then((d) => d.raw.pendingWorkflowTask?.attempt ?? 0),
      (attempt) => attempt >= 4,
      60_000,
    );
    const decided = baton.approve(run.workflowId, { approvalId: waiting!.handoffId, approver: 'alice' });
    decided.catch(() => undefined);
    // A window in which Temporal refuses the update (the task fails): nothing the test can wait on shows the refusal.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    failing.shutdown();
    await failingRun;
    // The chain's own worker is back: the decision is taken, and the chain goes on.
    const again = await serve();
    await again.runUntil(async () => {
      expect(await decided).toMatchObject({ handoffId: waiting!.handoffId, outcome: 'approved', approver: 'alice' });
      expect((await run.result()).output).toBe('refunded');
    });
  });
});
