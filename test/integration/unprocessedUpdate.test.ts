/**
 * An update Temporal rejects as `UnprocessedUpdate`, on a real server: a worker completed the
 * workflow task that carried it without answering it, so the workflow never saw it. Nothing was
 * taken or refused: a conversation's message and a decision are sent again and taken once a worker
 * runs the workflow, not lost to a bare WorkflowUpdateFailedError.
 *
 * The worker that completes the task without an answer is this test, polling the queue over gRPC.
 */
import { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createWorker, defineTool, Team } from '../../src';
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

/** Take the next workflow task of `queue` that carries an update and complete it without answering the update. */
async function completeWithoutAnswer(queue: string): Promise<string> {
  const { connection } = server.env.client;
  const service = connection.workflowService;
  for (;;) {
    const task = await connection.withDeadline(Date.now() + 70_000, () =>
      service.pollWorkflowTaskQueue({
        namespace: 'default',
        taskQueue: { name: queue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
        identity: 'a worker that does not answer updates',
      }),
    );
    if (!task.taskToken || task.taskToken.length === 0) continue;
    await service.respondWorkflowTaskCompleted({
      namespace: 'default',
      taskToken: task.taskToken,
      identity: 'a worker that does not answer updates',
      commands: [],
      messages: [],
    });
    // The only messages a workflow task carries are update requests.
    const update = task.messages?.[0];
    if (update) return update.protocolInstanceId ?? '';
  }
}

describe('an update Temporal rejects as unprocessed', () => {
  it('a conversation’s message is sent again and answered once', { timeout: 150_000 }, async () => {
    const queue = taskQueue();
    const team = () => new Team([agent('desk', [{ text: 'first answer' }, { text: 'second answer' }])]);
    const serve = () =>
      createWorker({
        team: team(),
        connection: server.env.nativeConnection,
        taskQueue: queue,
        providers: recordingScripted().providers,
      });
    const baton = new Baton({ client: server.env.client, taskQueue: queue });
    const chat = baton.conversation('desk');
    await (await serve()).runUntil(async () => expect((await chat.send('one')).output).toBe('first answer'));
    // No worker of the team runs now: the message's task goes to the test, which completes it without an answer.
    const reply = chat.send('two');
    reply.catch(() => undefined);
    expect(await completeWithoutAnswer(queue)).not.toBe('');
    await (
      await serve()
    ).runUntil(async () => {
      expect((await reply).output).toBe('second answer');
      const turns = await chat.history();
      expect(turns.map((t) => [t.message, t.output])).toEqual([
        ['one', 'first answer'],
        ['two', 'second answer'],
      ]);
    });
  });

  it('a decision is sent again and taken', { timeout: 150_000 }, async () => {
    const queue = taskQueue();
    const team = () =>
      new Team([
        agent('desk', [{ toolCalls: [{ name: 'refund', arguments: { orderId: '7' } }] }, { text: 'refunded' }], {
          tools: [refund],
        }),
      ]);
    const serve = () =>
      createWorker({
        team: team(),
        connection: server.env.nativeConnection,
        taskQueue: queue,
        providers: recordingScripted().providers,
      });
    const baton = new Baton({ client: server.env.client, taskQueue: queue });
    const { run, waiting } = await (
      await serve()
    ).runUntil(async () => {
      const started = await baton.start('desk', 'refund order 7');
      const [pending] = await waitFor(
        () => started.pendingApprovals(),
        (p) => p.length === 1,
      );
      return { run: started, waiting: pending! };
    });
    const decided = baton.approve(run.workflowId, { approvalId: waiting.handoffId, approver: 'alice' });
    decided.catch(() => undefined);
    expect(await completeWithoutAnswer(queue)).not.toBe('');
    await (
      await serve()
    ).runUntil(async () => {
      expect(await decided).toMatchObject({ handoffId: waiting.handoffId, outcome: 'approved', approver: 'alice' });
      expect((await run.result()).output).toBe('refunded');
    });
  });
});
