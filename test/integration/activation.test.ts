/**
 * A decision that arrives in the same workflow task as the model answer that opened its approval
 * (the interleaving behind the chain that got stuck after a server restart): the run must apply it
 * and its history must replay.
 */
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { bundleWorkflowCode, DefaultLogger, Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { createActivities } from '../../activities';
import { defineAgent, scripted, Team } from '../../src';
import { approveHandoffSignal } from '../../src/workflow';
import { BatonRun } from '../../src/client/run';
import { workflowBundle, WORKFLOWS_PATH } from '../../src/worker';
import { checkHistories } from '../../src/worker/determinism';
import { useTemporalServer, taskQueue } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import type { MemoProbe } from './probe/memos';

const server = useTemporalServer();

const eventNames = async (run: BatonRun) =>
  ((await run.handle.fetchHistory()).events ?? []).map((e) =>
    String(temporal.api.enums.v1.EventType[e.eventType ?? 0]).replace('EVENT_TYPE_', ''),
  );

/** The id the held workflow task will give the handoff it puts up for approval, learned by replaying the history so far. */
async function upcomingHandoffId(run: BatonRun): Promise<string> {
  const bundle = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: [path.join(__dirname, 'probe/memos.ts')],
    logger: new DefaultLogger('WARN'),
  });
  const events: { type?: string; handoffId?: string }[] = [];
  const sinks: {
    probe: { memo: { fn: (info: unknown, fields: Record<string, Uint8Array>) => void; callDuringReplay: boolean } };
  } = {
    probe: {
      memo: {
        fn: (_info, fields) => {
          if (fields.batonApprovalEvent)
            events.push(JSON.parse(Buffer.from(fields.batonApprovalEvent).toString()) as { type?: string });
        },
        callDuringReplay: true,
      },
    },
  };
  await Worker.runReplayHistory(
    { workflowBundle: bundle, sinks: sinks as never satisfies MemoProbe | never },
    await run.handle.fetchHistory(),
    run.workflowId,
  );
  const requested = events.find((e) => e.type === 'approval_requested');
  if (!requested?.handoffId) throw new Error(`the held task opens no approval (memos: ${JSON.stringify(events)})`);
  return requested.handoffId;
}

describe('a signal in the same activation as the model answer', () => {
  it('applies an approval that lands with the model answer that asked for it, and the history replays', async () => {
    const team = new Team([
      defineAgent({
        id: 'a',
        instructions: 'A',
        model: scripted([{ handoff: { to: 'b', message: 'needs a yes' }, delayMs: 1000 }]),
      }),
      defineAgent({
        id: 'b',
        instructions: 'B',
        model: scripted([{ text: 'approved work done' }]),
        approval: { approvers: ['alice'], timeout: '10 minutes' },
      }),
    ]);
    const queue = taskQueue();
    const connection = server.env.nativeConnection;
    const activities = await Worker.create({ connection, taskQueue: queue, activities: createActivities({ team }) });
    const workflows = () =>
      workflowBundle().then((bundle) =>
        Worker.create({
          connection,
          taskQueue: queue,
          workflowBundle: bundle,
          stickyQueueScheduleToStartTimeout: '1 second',
        }),
      );

    await activities.runUntil(async () => {
      const handle = await server.env.client.workflow.start('handoffRun', {
        taskQueue: queue,
        workflowId: `same-activation-${Date.now()}`,
        args: [{ agent: 'a', input: 'go' }],
      });
      const run = new BatonRun(handle as never);
      // Hold the workflow worker once the model call is scheduled, so its answer and the signal land before the next workflow task.
      const held = await workflows();
      await held.runUntil(
        waitFor(
          () => eventNames(run),
          (names) => names.filter((n) => n === 'ACTIVITY_TASK_SCHEDULED').length === 2,
        ),
      );
      await waitFor(
        () => eventNames(run),
        (names) => names.filter((n) => n === 'ACTIVITY_TASK_COMPLETED').length === 2,
      );
      const handoffId = await upcomingHandoffId(run);
      await handle.signal(approveHandoffSignal, { handoffId, approver: 'alice' });

      const result = await (await workflows()).runUntil(run.result());
      expect(result.output).toBe('approved work done');
      expect(result.handoffChain[0]?.approval).toMatchObject({
        handoffId,
        approver: 'alice',
        outcome: 'approved',
        via: 'signal',
      });

      const names = await eventNames(run);
      const answered = names.lastIndexOf('ACTIVITY_TASK_COMPLETED', names.indexOf('WORKFLOW_EXECUTION_SIGNALED'));
      // One workflow task carried both: the model answer and the signal came before it started.
      const beforeNextTask = names.slice(answered, names.indexOf('WORKFLOW_TASK_STARTED', answered));
      expect(beforeNextTask).toContain('WORKFLOW_EXECUTION_SIGNALED');
      expect(names).not.toContain('WORKFLOW_TASK_FAILED');
      const [replayed] = await checkHistories([{ source: run.workflowId, history: await handle.fetchHistory() }]);
      expect(replayed).toEqual({ source: run.workflowId, ok: true });
    });
  });
});
