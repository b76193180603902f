/**
 * The service in front of a run whose workflow task is being retried (its worker lost mid-task, a
 * task that fails): Temporal takes no query or update for it meanwhile (FAILED_PRECONDITION,
 * "Workflow Task in failed state"). Nothing was refused for what the caller asked, so the service
 * answers 503 with Retry-After and says to send the same request again, not 409.
 */
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { taskQueue, useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { TOKENS, withBareService } from './service';

const server = useTemporalServer();

describe('a run whose workflow task is being retried', () => {
  it(
    'answers a message follow, a conversation read and a decision 503 with Retry-After, naming what to do',
    { timeout: 120_000 },
    async () => {
      const queue = taskQueue();
      const worker = await Worker.create({
        connection: server.env.nativeConnection,
        taskQueue: queue,
        workflowsPath: path.join(__dirname, 'fixtures/failingTask.ts'),
      });
      await worker.runUntil(async () => {
        const client = server.env.client;
        const chat = await client.workflow.start('conversation', {
          workflowId: `chat-${queue}`,
          taskQueue: queue,
          args: [],
        });
        const chain = await client.workflow.start('handoffRun', {
          workflowId: `chain-${queue}`,
          taskQueue: queue,
          args: [],
        });
        // Both past their first task and retrying the next, which Temporal now backs off.
        for (const h of [chat, chain])
          await waitFor(
            () => h.describe().then((d) => d.raw.pendingWorkflowTask?.attempt ?? 0),
            (attempt) => attempt >= 4,
            60_000,
          );
        await withBareService(
          server.env,
          async ({ call }) => {
            const answers = [
              await call('GET', `/v1/conversations/${chat.workflowId}/messages/k1`, { token: TOKENS.admin }),
              await call('GET', `/v1/conversations/${chat.workflowId}`, { token: TOKENS.admin }),
              await call('POST', `/v1/runs/${chain.workflowId}/approvals/a1`, {
                token: TOKENS.alice,
                body: { decision: 'approve', comment: 'fine' },
              }),
            ];
            // Temporal answers a query to such a run either way: the task in failed state, or no worker answering in time.
            expect(answers.map((a) => [a.status, a.headers.get('retry-after'), a.body.title])).toEqual([
              [503, '5', expect.stringMatching(/^(Run not answering|Temporal did not answer)$/)],
              [503, '5', expect.stringMatching(/^(Run not answering|Temporal did not answer)$/)],
              [503, '5', 'Run not answering'],
            ]);
            expect(answers[2]!.body.detail).toMatch(
              /retrying its workflow task.*nothing was refused; send the same request again/,
            );
          },
          { temporalTimeoutMs: 3_000 },
        );
      });
    },
  );
});
