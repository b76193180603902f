/**
 * Reports and decisions that cross chains, on a real server and worker: a chain takes what waits in
 * the specialists it started from the specialists themselves (a report is only a sign to read), and a
 * decision sent to the top chain for an approval waiting in a specialist, by signal or update from
 * any client, is forwarded to the specialist that waits, the update answering with its outcome.
 */
import { type WorkflowHandle, WorkflowUpdateFailedError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { ApprovalRefusedError, type Baton, defineAgent, delegate, scripted, Team } from '../../src';
import {
  approveHandoffSignal,
  childApprovalsSignal,
  decideHandoffUpdate,
  statusQuery,
  type PendingApproval,
  type ScriptedStep,
} from '../../src/workflow';
import { toBatonError } from '../../src/client';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { approvalEvents, eachRefusal, failedTasks } from './history';

const server = useTemporalServer();

const task = (to: string, what: string): ScriptedStep => ({
  toolCalls: [{ name: 'delegate', arguments: { to, task: what, reason: `${to} knows` } }],
});
const summarizer = { rules: [{ whenIncludes: '', reply: { text: 'summarized' } }] };

/** top delegates to middle, middle to leaf, and leaf's handoff to vault waits for alice. */
const tree = () =>
  new Team([
    defineAgent({
      id: 'top',
      instructions: 'Top.',
      model: scripted({ steps: [task('middle', 'organise it')], ...summarizer }),
      handoffs: [delegate('middle')],
    }),
    defineAgent({
      id: 'middle',
      instructions: 'Middle.',
      model: scripted({ steps: [task('leaf', 'do the risky part')], ...summarizer }),
      handoffs: [delegate('leaf')],
    }),
    defineAgent({
      id: 'leaf',
      instructions: 'Leaf.',
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

const fake = (workflowId: string): PendingApproval => ({
  handoffId: 'forged-1',
  from: 'x',
  to: 'y',
  message: 'approve me',
  requestedAt: new Date().toISOString(),
  onTimeout: 'reject',
  workflowId,
});

/** Start the tree and wait until the vault's approval surfaces at the top. */
async function waitingTree(baton: Baton) {
  const run = await baton.start('top', 'go');
  const [waiting] = await waitFor(
    () => run.pendingApprovals(),
    (p) => p.length === 1,
  );
  return { run, handle: run.handle as WorkflowHandle, waiting: waiting! };
}

describe('reports and decisions across chains', () => {
  it(
    'takes reports of waiting approvals only from its own specialists: forged ones are refused and recorded, and change nothing',
    { timeout: 60_000 },
    async () => {
      await withWorker(server.env, tree(), async (baton) => {
        const { run, handle, waiting } = await waitingTree(baton);
        const middle = `${run.workflowId}/middle-1.1`;
        expect(waiting.workflowId).toBe(`${middle}/leaf-1.1`);
        // From nobody the chain started: refused. From its specialist's id — without the token, with a wrong one, with the
        // token (readable from the specialist's input in history): only a sign to read the specialist, which answers for itself.
        await handle.signal(childApprovalsSignal, { workflowId: 'mallory', pending: [fake('mallory')] });
        const started = (await server.env.client.workflow.getHandle(middle).fetchHistory()).events![0]!
          .workflowExecutionStartedEventAttributes!;
        const token = (
          JSON.parse(Buffer.from(started.input!.payloads![0]!.data!).toString('utf8')) as { parent: { token: string } }
        ).parent.token;
        for (const report of [
          { workflowId: middle, pending: [fake(middle)] },
          { workflowId: middle, token: 'guessed', pending: [waiting, fake(middle)] },
          { workflowId: middle, token, pending: [waiting, fake('elsewhere')] },
          { workflowId: middle, token, pending: [] },
        ]) {
          await handle.signal(childApprovalsSignal, report);
        }
        const refused = await waitFor(
          () => approvalEvents(handle).then((events) => eachRefusal(events).filter((e) => e.type === 'report_refused')),
          (r) => r.length >= 1,
        );
        expect(refused.map((r) => r.reason)).toEqual(['mallory is not a specialist this chain started']);
        expect((await run.pendingApprovals()).map((p) => p.handoffId)).toEqual([waiting.handoffId]);
        expect((await handle.query(statusQuery)).pendingApprovals.map((p) => p.handoffId)).toEqual([waiting.handoffId]);

        await baton.approve(run.workflowId, waiting.handoffId, { approver: 'alice' });
        expect((await run.result()).output).toBe('summarized');
        expect(await failedTasks(handle)).toEqual([]);
      });
    },
  );

  it('refuses a report sent to a chain that started no specialist', { timeout: 60_000 }, async () => {
    const team = new Team([
      defineAgent({
        id: 'a',
        instructions: 'A.',
        model: scripted({
          rules: [
            { whenIncludes: 'hand', reply: { handoff: { to: 'b', message: 'over' } } },
            { whenIncludes: '', reply: { text: 'from a' } },
          ],
        }),
        handoffs: ['b'],
      }),
      defineAgent({
        id: 'b',
        instructions: 'B.',
        model: scripted({ rules: [{ whenIncludes: '', reply: { text: 'from b' } }] }),
        approval: { approvers: ['alice'] },
      }),
    ]);
    await withWorker(server.env, team, async (baton) => {
      const run = await baton.start('a', 'please hand over');
      const [waiting] = await waitFor(
        () => run.pendingApprovals(),
        (p) => p.length === 1,
      );
      const handle = run.handle as WorkflowHandle;
      await handle.signal(childApprovalsSignal, {
        workflowId: `${run.workflowId}/b-1.1`,
        token: 'x',
        pending: [fake(`${run.workflowId}/b-1.1`)],
      });
      await waitFor(
        () => approvalEvents(handle),
        (events) => events.some((e) => e.type === 'report_refused'),
      );
      expect((await run.pendingApprovals()).map((p) => p.handoffId)).toEqual([waiting!.handoffId]);
      await baton.approve(run.workflowId, waiting!.handoffId, { approver: 'alice' });
      expect((await run.result()).output).toBe('from b');
    });
  });

  it(
    'forwards a raw approveHandoff signal sent to the top chain with a specialist’s approval id to the specialist that waits',
    { timeout: 60_000 },
    async () => {
      await withWorker(server.env, tree(), async (baton) => {
        const { run, handle, waiting } = await waitingTree(baton);
        // Not allowed: refused at the top, which knows who may decide, and recorded there.
        await handle.signal(approveHandoffSignal, { handoffId: waiting.handoffId, approver: 'mallory' });
        await handle.signal(approveHandoffSignal, {
          handoffId: waiting.handoffId,
          approver: 'alice',
          comment: 'go ahead',
        });
        expect((await run.result()).output).toBe('summarized');
        expect((await approvalEvents(handle)).filter((e) => e.type === 'decision_refused')).toEqual([
          expect.objectContaining({
            approver: 'mallory',
            reason: 'mallory may not decide this handoff (approvers: alice)',
            via: 'signal',
          }),
        ]);
        const leaf = server.env.client.workflow.getHandle(waiting.workflowId!);
        const decided = (await approvalEvents(leaf)).filter(
          (e) => e.type === 'approval_decided' || e.type === 'decision_refused',
        );
        expect(decided).toEqual([
          expect.objectContaining({
            type: 'approval_decided',
            handoffId: waiting.handoffId,
            approver: 'alice',
            comment: 'go ahead',
            via: 'signal',
            outcome: 'approved',
          }),
        ]);
        expect(await failedTasks(handle)).toEqual([]);
      });
    },
  );

  it(
    'answers a decideHandoff update sent to the top chain with the specialist’s outcome, or its refusal',
    { timeout: 60_000 },
    async () => {
      await withWorker(server.env, tree(), async (baton) => {
        const { run, handle, waiting } = await waitingTree(baton);
        const decide = (d: Record<string, unknown>) =>
          handle
            .executeUpdate(decideHandoffUpdate, { args: [{ handoffId: waiting.handoffId, ...d } as never] })
            .catch((e: unknown) => e);

        // Refused at the top (who may decide is listed there) and in the specialist (what only it knows).
        const notAllowed = await decide({ approver: 'mallory', decision: 'approve' });
        expect(notAllowed).toBeInstanceOf(WorkflowUpdateFailedError);
        expect(toBatonError(notAllowed)).toMatchObject({
          name: 'ApprovalRefusedError',
          reason: 'mallory may not decide this handoff (approvers: alice)',
        });
        const notATool = toBatonError(await decide({ approver: 'alice', decision: 'approve', callHash: 'abc' }));
        expect(notATool).toBeInstanceOf(ApprovalRefusedError);
        expect((notATool as ApprovalRefusedError).reason).toBe(
          `handoff ${waiting.handoffId} is not a tool call: "arguments" and "callHash" apply to tool approvals only`,
        );

        const record = await decide({ approver: 'alice', decision: 'reject', reason: 'not today' });
        expect(record).toMatchObject({
          handoffId: waiting.handoffId,
          outcome: 'rejected',
          approver: 'alice',
          reason: 'not today',
          via: 'update',
        });
        const again = toBatonError(await decide({ approver: 'alice', decision: 'approve' }));
        expect(again).toBeInstanceOf(ApprovalRefusedError);
        expect((await run.result()).output).toBe('summarized');
        expect(await failedTasks(handle)).toEqual([]);
      });
    },
  );
});
