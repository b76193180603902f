/**
 * What a reader of history can do to a specialist's report, on a real server and worker, driven by
 * the `temporal` CLI: the token a specialist was started with is in its start input, readable by
 * anyone who may read history. With it, a signalled report may neither put a forged approval at the
 * top chain nor hide the one that waits: the top reads what waits in its specialist from the
 * specialist itself, which Temporal records as its child.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { WorkflowHandle } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { defineAgent, delegate, scripted, Team } from '../../src';
import type { PendingApproval, ScriptedStep } from '../../src/workflow';
import { findTemporalBinary } from '../../src/devserver/binary';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { approvalEvents, eachRefusal, failedTasks } from '../bounds/history';

const server = useTemporalServer();
const run$ = promisify(execFile);

/** The `temporal` CLI, as another program would run it. */
async function temporal(args: string[]): Promise<string> {
  const { stdout } = await run$(findTemporalBinary('cli')!, [...args, '--address', server.env.address]);
  return stdout;
}

const task = (to: string, what: string): ScriptedStep => ({
  toolCalls: [{ name: 'delegate', arguments: { to, task: what, reason: `${to} knows` } }],
});
const summarizer = { rules: [{ whenIncludes: '', reply: { text: 'summarized' } }] };

/** top delegates to middle, whose handoff to vault waits for alice. */
const tree = () =>
  new Team([
    defineAgent({
      id: 'top',
      instructions: 'Top.',
      model: scripted({ steps: [task('middle', 'do the risky part')], ...summarizer }),
      handoffs: [delegate('middle')],
    }),
    defineAgent({
      id: 'middle',
      instructions: 'Middle.',
      model: scripted({ steps: [{ handoff: { to: 'vault', message: 'open the vault' } }], ...summarizer }),
      handoffs: ['vault'],
    }),
    defineAgent({
      id: 'vault',
      instructions: 'Vault.',
      model: scripted({ rules: [{ whenIncludes: '', reply: { text: 'vault opened' } }] }),
      approval: { approvers: ['alice'] },
    }),
  ]);

/** Reads of specialists the top chain has completed so far. */
async function readsDone(handle: WorkflowHandle): Promise<number> {
  const history = await handle.fetchHistory();
  const scheduled = new Set(
    history
      .events!.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'readSpecialistApprovals')
      .map((e) => String(e.eventId)),
  );
  return history.events!.filter(
    (e) =>
      e.activityTaskCompletedEventAttributes &&
      scheduled.has(String(e.activityTaskCompletedEventAttributes.scheduledEventId)),
  ).length;
}

describe('report authenticity', () => {
  it(
    'a report signalled with the token copied from history neither forges nor hides what waits in the specialist',
    { timeout: 90_000 },
    async () => {
      await withWorker(server.env, tree(), async (baton) => {
        const run = await baton.start('top', 'go');
        const [waiting] = await waitFor(
          () => run.pendingApprovals(),
          (p) => p.length === 1,
        );
        const handle = run.handle as WorkflowHandle;
        const middle = waiting!.workflowId!;
        expect(middle).toBe(`${run.workflowId}/middle-1.1`);

        // The reader copies the token from the specialist's start input, as the CLI shows history.
        const shown = JSON.parse(await temporal(['workflow', 'show', '--workflow-id', middle, '--output', 'json'])) as {
          events: { workflowExecutionStartedEventAttributes?: { input: { payloads: { data: string }[] } } }[];
        };
        const input = shown.events[0]!.workflowExecutionStartedEventAttributes!.input.payloads[0]!;
        const token = (JSON.parse(Buffer.from(input.data, 'base64').toString('utf8')) as { parent: { token: string } })
          .parent.token;
        expect(token).toMatch(/\S/);

        const before = await readsDone(handle);
        const forged: PendingApproval = {
          ...waiting!,
          message: 'nothing to see: a routine refund of $5',
          from: 'middle',
        };
        delete (forged as { workflowId?: string }).workflowId;
        const signal = (report: unknown) =>
          temporal([
            'workflow',
            'signal',
            '--workflow-id',
            run.workflowId,
            '--name',
            'childApprovals',
            '--input',
            JSON.stringify(report),
          ]);
        // Forge: the same approval, with a message that hides what it does; and another approval of the forger's.
        await signal({
          workflowId: middle,
          token,
          pending: [forged, { ...forged, handoffId: 'forged-2', message: 'approve me' }],
        });
        await waitFor(
          () => readsDone(handle),
          (n) => n >= before + 1,
        );
        expect((await run.pendingApprovals()).map((p) => [p.handoffId, p.message, p.workflowId])).toEqual([
          [waiting!.handoffId, 'open the vault', middle],
        ]);
        // Hide: nothing waits, says the report.
        await signal({ workflowId: middle, token, pending: [] });
        await waitFor(
          () => readsDone(handle),
          (n) => n >= before + 2,
        );
        expect((await run.pendingApprovals()).map((p) => [p.handoffId, p.message])).toEqual([
          [waiting!.handoffId, 'open the vault'],
        ]);
        // From a chain the top did not start: refused on the record, as before.
        await signal({ workflowId: 'mallory', token, pending: [] });
        await waitFor(
          () => approvalEvents(handle).then((events) => eachRefusal(events).filter((e) => e.type === 'report_refused')),
          (r) => r.some((e) => e.reason === 'mallory is not a specialist this chain started'),
        );

        // The decision sent through the top still reaches the approval that waits.
        await baton.approve(run.workflowId, waiting!.handoffId, { approver: 'alice' });
        expect((await run.result()).output).toBe('summarized');
        expect(await failedTasks(handle)).toEqual([]);
      });
    },
  );
});
