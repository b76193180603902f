/**
 * States carried into a next run after a tool call was approved — by continue-as-new, a
 * conversation's continue-as-new, a migration onto the current team — are read back by the run that
 * takes them; and a chain a release before this one lost that way continues with `baton replay`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { Baton, InvalidRunInputError } from '../../src';
import { WorkflowType, type ConversationInput, type HandoffRunInput } from '../../src/workflow';
import { fromPayloads } from '../../src/payloads/read';
import { cli } from '../helpers/cli';
import { taskQueue, useTemporalServer, withWorker } from '../helpers/temporal';
import {
  conversationAfterToolApprovalScenario,
  continueAfterToolApprovalScenario,
  migrateAfterToolApproval,
  payouts,
} from '../histories/carriedScenarios';
import { nextApproval } from '../histories/auditScenarios';

const server = useTemporalServer();

/** Payouts made by the chain `workflowId`. */
const paidBy = (workflowId: string) => payouts.filter((p) => p.key.startsWith(`${workflowId}:`)).map((p) => p.paid);

describe('states carried after an approved tool call', () => {
  it('a chain continues as new after an approved tool call: the call is neither asked again nor run again', async () => {
    await withWorker(server.env, continueAfterToolApprovalScenario.team(), async (baton) => {
      const run = await baton.start('a', 'pay bob, then look orders 7 and 8 up', { continueAsNewAfterEvents: 20 });
      const waiting = await nextApproval(run);
      await baton.approve(run.workflowId, waiting.handoffId, { approver: 'alice' });
      const result = await run.result();
      expect(result.output).toBe('bob was paid 5; orders 7 and 8 shipped');
      expect(result.controls).toMatchObject({ tool_approvals_requested: 1, tool_calls_approved: 1 });
      expect(paidBy(run.workflowId)).toEqual(['5 to bob']);
      const audit = await baton.audit(run.workflowId);
      expect(audit.status).toBe('completed');
      expect(audit.runIds.length).toBeGreaterThanOrEqual(2);
      // The run that took the approval's state went on: the approval and the payout are in an earlier run.
      expect(audit.events.find((e) => e.kind === 'approval_decided')?.runId).not.toBe(audit.runIds.at(-1));
    });
  });

  it('a conversation continues as new after a turn with a tool approval and after a hand-back, and answers the next messages', async () => {
    await withWorker(server.env, conversationAfterToolApprovalScenario.team(), async (baton) => {
      const id = await conversationAfterToolApprovalScenario.drive(baton, server.env);
      const chat = baton.conversation('desk', { id });
      const audit = await chat.audit();
      expect(audit.runIds.length).toBeGreaterThanOrEqual(3);
      expect(audit.turns.map((t) => [t.status, t.output])).toEqual([
        ['answered', 'bob is paid'],
        ['answered', 'order 9 refunded'],
        ['answered', 'anything else?'],
      ]);
      expect(paidBy(id)).toEqual(['5 to bob']);
      expect(await chat.result()).toMatchObject({ endedBy: 'requested', turns: 3 });
    });
  });

  it('a chain migrated onto the current team after its approved tool ran completes there, the payout made once', async () => {
    const id = await migrateAfterToolApproval(server.env, taskQueue());
    const audit = await new Baton({ client: server.env.client }).audit(id);
    expect(audit.status).toBe('completed');
    expect(audit.result?.output).toBe('bob was paid 5; order 7 shipped (v2)');
    // Asked and decided once, before the migration: the audit follows the replay back to that run.
    const migrated = audit.lineage.at(-1)!.runId;
    expect(audit.events.filter((e) => e.kind === 'approval_requested').map((e) => e.runId === migrated)).toEqual([
      false,
    ]);
    expect(audit.events.filter((e) => e.kind === 'approval_decided').map((e) => e.runId === migrated)).toEqual([false]);
    expect(paidBy(id)).toEqual(['5 to bob']);
  });
});

/** The input and failure of a continued run lost by a release before this one (recorded with it). */
function lostRun<I = HandoffRunInput>(
  file = 'lost-after-tool-approval.json',
): { input: I; failure: { type: string; message: string } } {
  const { workflowId: _id, ...json } = JSON.parse(fs.readFileSync(path.join(__dirname, 'fixtures', file), 'utf8')) as {
    workflowId: string;
  };
  const events = historyFromJSON(json).events ?? [];
  const input = fromPayloads<I>(events[0]?.workflowExecutionStartedEventAttributes?.input)!;
  const failure = events.at(-1)?.workflowExecutionFailedEventAttributes?.failure;
  return { input, failure: { type: failure?.applicationFailureInfo?.type ?? '', message: failure?.message ?? '' } };
}

describe('a chain lost to a carried state its worker did not understand', () => {
  it('continues with baton replay on workers that read it: by reset from the library, onto the current team from the CLI', async () => {
    const { input, failure } = lostRun();
    expect(failure).toEqual({
      type: InvalidRunInputError.name,
      message: expect.stringContaining('"resume.approvals" has unknown field(s) "toolCalls"'),
    });
    const queue = taskQueue();
    const ids = [`lost-library-${randomUUID()}`, `lost-cli-${randomUUID()}`];
    // The chains as the earlier release's worker left them: failed as their continued run started.
    const earlier = await Worker.create({
      connection: server.env.nativeConnection,
      taskQueue: queue,
      workflowsPath: path.join(__dirname, 'fixtures/lostWorkflows.ts'),
    });
    await earlier.runUntil(async () => {
      for (const workflowId of ids) {
        const handle = await server.env.client.workflow.start(WorkflowType.HANDOFF_RUN, {
          taskQueue: queue,
          workflowId,
          args: [input],
          memo: { lostWith: failure },
        });
        await expect(handle.result()).rejects.toMatchObject({ cause: { type: InvalidRunInputError.name } });
      }
    });

    await withWorker(
      server.env,
      continueAfterToolApprovalScenario.team(),
      async (baton) => {
        const replayed = await baton.replay(ids[0]!);
        expect(replayed).toMatchObject({ mechanism: 'reset' });
        expect((await baton.getRun(ids[0]!).result()).output).toBe('bob was paid 5; orders 7 and 8 shipped');

        const out = await cli(['replay', ids[1]!, '--on-current-team', '--task-queue', queue], {
          TEMPORAL_ADDRESS: server.env.address,
        });
        expect(out.stderr).toBe('');
        expect(out.code).toBe(0);
        expect(out.stdout).toContain(`chain ${ids[1]} continues from carried state`);
        expect((await baton.getRun(ids[1]!).result()).output).toBe('bob was paid 5; orders 7 and 8 shipped');

        for (const id of ids) {
          // The payout was approved and made before the chain was lost: nobody is asked again, nothing paid again.
          const audit = await baton.audit(id);
          expect(audit.events.filter((e) => e.kind === 'approval_requested')).toHaveLength(0);
          expect(paidBy(id)).toEqual([]);
        }
      },
      { taskQueue: queue },
    );
  });

  it('a conversation lost that way continues with baton replay <conversationId>, its messages answered', async () => {
    const { input, failure } = lostRun<ConversationInput>('lost-conversation-after-tool-approval.json');
    expect(failure.message).toContain('"resume.chain.approvals" has unknown field(s) "toolCalls"');
    const queue = taskQueue();
    const id = `lost-conversation-${randomUUID()}`;
    const earlier = await Worker.create({
      connection: server.env.nativeConnection,
      taskQueue: queue,
      workflowsPath: path.join(__dirname, 'fixtures/lostWorkflows.ts'),
    });
    await earlier.runUntil(async () => {
      const handle = await server.env.client.workflow.start(WorkflowType.CONVERSATION, {
        taskQueue: queue,
        workflowId: id,
        args: [input],
        memo: { lostWith: failure },
      });
      await expect(handle.result()).rejects.toMatchObject({ cause: { type: InvalidRunInputError.name } });
    });

    await withWorker(
      server.env,
      conversationAfterToolApprovalScenario.team(),
      async (baton) => {
        const out = await cli(['replay', id, '--task-queue', queue], { TEMPORAL_ADDRESS: server.env.address });
        expect(out.stderr).toBe('');
        expect(out.code).toBe(0);
        expect(out.stdout).toMatch(
          new RegExp(`conversation ${id} continues in run \\S+ from the state run \\S+ was handed`),
        );
        const chat = baton.conversation('desk', { id });
        // The message the lost run was handed is answered; its payout was made before, and is not made again.
        expect((await chat.send('pay bob 5', { idempotencyKey: 'pay' })).output).toBe('bob is paid');
        expect((await chat.send('and refund order 9', { idempotencyKey: 'refund' })).output).toBe('order 9 refunded');
        expect(paidBy(id)).toEqual([]);
        await chat.end();
      },
      { taskQueue: queue },
    );
  });
});
