/**
 * A person's decision taken in the workflow task whose step then failed survives `baton replay`
 * without overrides: the replay does not ask that approval again, so neither a person's approval
 * nor a person's rejection can be turned into the policy's outcome at the approval's first deadline.
 */
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, Team, ToolExecutionError, type Baton, type BatonRun } from '../../src';
import { approveHandoffSignal } from '../../src/workflow';
import { exportAudit, verifyAuditExport } from '../../src/audit';
import type { CallModelInput } from '../../src/common/model';
import type { ModelProviders } from '../../src/models/provider';
import { ScriptedProvider } from '../../src/models/scripted';
import { scriptedAgent as agent } from '../helpers/agents';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const server = useTemporalServer();

/** The scripted model, except that the calls `down` picks fail for good while it does. */
function failing(down: (input: CallModelInput) => boolean): ModelProviders {
  const scripted = new ScriptedProvider();
  return {
    scripted: {
      call: (input, context) => {
        if (down(input)) throw ApplicationFailure.nonRetryable('the model provider is down', 'ProviderDown');
        return scripted.call(input, context);
      },
    },
  };
}

/** What the chain does once replayed: ends, or asks the approval again. */
async function afterReplay(baton: Baton, workflowId: string): Promise<string> {
  const run = baton.getRun(workflowId);
  const asked = waitFor(
    () => run.pendingApprovals(),
    (p) => p.length > 0,
    60_000,
  ).then(() => 'asked again');
  return Promise.race([run.result().then((r) => `ended: ${String(r.output)}`), asked]);
}

/** Decisions of the chain's export (approval id → outcome), once the export verifies. */
async function exported(baton: Baton, workflowId: string): Promise<Record<string, string>> {
  const doc = exportAudit(await baton.audit(workflowId));
  expect(verifyAuditExport(doc, { acceptUntrustedHead: true })).toMatchObject({ ok: true });
  const decided = doc.events.flatMap(({ event: e }) =>
    e.kind === 'approval_decided' ? [[e.handoffId, e.outcome] as const] : [],
  );
  return Object.fromEntries(decided);
}

describe('a replay of a chain failed right after a decision', () => {
  // An update's decision is handled in the task the reset runs again; a signal that came before it is delivered again.
  // Twice: the replay's run, acting on the carried answer and decision, fails too, and is replayed itself.
  it.each([
    { via: 'update', mechanism: 'resume', twice: false },
    { via: 'signal', mechanism: 'reset', twice: false },
    { via: 'update', mechanism: 'resume', twice: true },
  ] as const)(
    'runs an approved tool call again under the approval, without asking again (decided by $via, replayed twice: $twice)',
    { timeout: 120_000 },
    async ({ via, mechanism, twice }) => {
      let broken = true;
      let runs = 0;
      const refund = defineTool({
        name: 'refund',
        description: 'Refund an order',
        parameters: z.object({ orderId: z.string() }),
        needsApproval: { approvers: ['alice'], timeout: '3 seconds' },
        execute: ({ orderId }) => {
          runs++;
          if (broken) throw ApplicationFailure.nonRetryable('the payment provider refused', 'ProviderError');
          return `refunded ${orderId}`;
        },
      });
      const team = new Team([
        agent('desk', [{ toolCalls: [{ name: 'refund', arguments: { orderId: '7' } }] }, { text: 'refunded' }], {
          tools: [refund],
        }),
      ]);
      await withWorker(server.env, team, async (baton) => {
        const run = await baton.start('desk', 'refund order 7');
        const [waiting] = await waitFor(
          () => run.pendingApprovals(),
          (p) => p.length === 1,
        );
        if (via === 'update') await baton.approve(run.workflowId, waiting!.handoffId, { approver: 'alice' });
        else await run.handle.signal(approveHandoffSignal, { handoffId: waiting!.handoffId, approver: 'alice' });
        expect(await run.result().catch((e: unknown) => e)).toBeInstanceOf(ToolExecutionError);
        // Past the approval's deadline, where asking again would end in the policy's reject.
        await new Promise((r) => setTimeout(r, 3_500));

        if (twice) {
          expect(await baton.replay(run.workflowId)).toMatchObject({ from: 'failed runTool', mechanism });
          const again = baton.getRun(run.workflowId);
          expect(await again.result().catch((e: unknown) => e)).toBeInstanceOf(ToolExecutionError);
          expect(await again.pendingApprovals().catch(() => [])).toEqual([]);
        }
        broken = false;
        expect(await baton.replay(run.workflowId)).toMatchObject({
          from: 'failed runTool',
          mechanism: twice ? 'reset' : mechanism,
        });
        expect(await afterReplay(baton, run.workflowId)).toBe('ended: refunded');
        expect(runs).toBe(twice ? 3 : 2);
        expect(await exported(baton, run.workflowId)).toEqual({ [waiting!.handoffId]: 'approved' });
      });
    },
  );

  // A person's decision against what the policy does at its deadline; the turn that follows fails.
  const handoffCases = (['remote', 'local'] as const).flatMap((modelActivity) => [
    {
      modelActivity,
      decision: 'reject' as const,
      onTimeout: 'approve' as const,
      // desk's turn after the rejection
      failing: { agent: 'desk', fromCall: 1 },
      deskAnswers: ['handled at the desk'],
      ended: 'ended: handled at the desk',
      chain: [] as string[],
    },
    {
      modelActivity,
      decision: 'approve' as const,
      onTimeout: 'reject' as const,
      // refunds' first turn
      failing: { agent: 'refunds', fromCall: 0 },
      deskAnswers: [],
      ended: 'ended: refunded by refunds',
      chain: ['desk>refunds'],
    },
  ]);

  it.each(handoffCases)(
    "keeps a person's $decision of a handoff under a policy that does the opposite at its deadline ($modelActivity model calls)",
    { timeout: 120_000 },
    async (c) => {
      let broken = true;
      const providers = failing(
        (input) => broken && input.agentId === c.failing.agent && input.callIndex >= c.failing.fromCall,
      );
      const team = new Team([
        agent('desk', [
          { handoff: { to: 'refunds', message: 'refund order 7' } },
          ...c.deskAnswers.map((text) => ({ text })),
        ]),
        agent('refunds', [{ text: 'refunded by refunds' }], {
          approval: { approvers: ['alice'], timeout: '3 seconds', onTimeout: c.onTimeout },
        }),
      ]);
      await withWorker(
        server.env,
        team,
        async (baton) => {
          const run = await baton.start('desk', 'refund order 7', { modelActivity: c.modelActivity });
          const [waiting] = await waitFor(
            () => run.pendingApprovals(),
            (p) => p.length === 1,
          );
          await baton[c.decision](run.workflowId, waiting!.handoffId, { approver: 'alice' });
          await expect(run.result()).rejects.toThrow();
          // Past the approval's deadline, where asking again would end in the policy's outcome.
          await new Promise((r) => setTimeout(r, 3_500));

          broken = false;
          expect(await baton.replay(run.workflowId)).toMatchObject({ mechanism: 'resume' });
          expect(await afterReplay(baton, run.workflowId)).toBe(c.ended);
          const result = await baton.getRun(run.workflowId).result();
          expect(result.handoffChain.map((h) => `${h.from}>${h.to}`)).toEqual(c.chain);
          expect(await exported(baton, run.workflowId)).toEqual({
            [waiting!.handoffId]: c.decision === 'approve' ? 'approved' : 'rejected',
          });
        },
        { providers },
      );
    },
  );
});

/** Refused decisions (mallory is no approver) until the wait has continued as new at least once. */
async function continueWhileWaiting(baton: Baton, run: BatonRun, handoffId: string): Promise<void> {
  for (let i = 0; i < 20; i++) {
    await run.handle.signal(approveHandoffSignal, { handoffId, approver: 'mallory' });
    await new Promise((r) => setTimeout(r, 150));
  }
  let runs = 0;
  for await (const _ of baton.client.workflow.list({ query: `WorkflowId = "${run.workflowId}"` })) runs++;
  expect(runs).toBeGreaterThan(1);
}

describe("a replay of a chain failed at its entry's decision", () => {
  const team = (broken: () => boolean) => {
    const providers = failing(broken);
    const refunds = agent('refunds', [{ text: 'refunded by refunds' }], {
      approval: { approvers: ['alice'], timeout: '8 seconds', onTimeout: 'approve' },
    });
    return { team: new Team([agent('desk', [{ text: 'at the desk' }]), refunds]), providers };
  };
  // A chain whose entry's wait continued as new: its entry was asked in the run before.
  const CONTINUED = { continueAsNewAfterEvents: 20 };

  it.each([false, true])(
    "refuses to set a person's rejection of the entry aside (continued as new while it waited: %s)",
    { timeout: 120_000 },
    async (continued) => {
      const { team: t, providers } = team(() => false);
      await withWorker(
        server.env,
        t,
        async (baton) => {
          const run = await baton.start('refunds', 'refund order 7', continued ? CONTINUED : {});
          const [waiting] = await waitFor(
            () => run.pendingApprovals(),
            (p) => p.length === 1,
          );
          if (continued) await continueWhileWaiting(baton, run, waiting!.handoffId);
          await baton.reject(run.workflowId, waiting!.handoffId, { approver: 'alice' });
          await expect(run.result()).rejects.toThrow(/rejected by alice/);
          await expect(baton.replay(run.workflowId)).rejects.toThrow(
            `chain ${run.workflowId} ended when alice rejected its entry (approval ${waiting!.handoffId})`,
          );
          expect((await baton.getRun(run.workflowId).handle.describe()).status.name).toBe('FAILED');
        },
        { providers },
      );
    },
  );

  // A local call that failed leaves no input in history: the replay takes the turn up from the entry,
  // or from the state the run was handed.
  it.each([
    { modelActivity: 'remote', continued: false, from: 'failed callModel' },
    { modelActivity: 'local', continued: false, from: 'entry' },
    { modelActivity: 'remote', continued: true, from: 'failed callModel' },
    { modelActivity: 'local', continued: true, from: 'carried state' },
  ] as const)(
    'lets the chain in again on the approval when its first turn failed ($modelActivity model calls, continued as new: $continued)',
    { timeout: 120_000 },
    async ({ modelActivity, continued, from }) => {
      let broken = true;
      const { team: t, providers } = team(() => broken);
      await withWorker(
        server.env,
        t,
        async (baton) => {
          const run = await baton.start('refunds', 'refund order 7', {
            modelActivity,
            ...(continued ? CONTINUED : {}),
          });
          const [waiting] = await waitFor(
            () => run.pendingApprovals(),
            (p) => p.length === 1,
          );
          if (continued) await continueWhileWaiting(baton, run, waiting!.handoffId);
          await baton.approve(run.workflowId, waiting!.handoffId, { approver: 'alice' });
          await expect(run.result()).rejects.toThrow();

          broken = false;
          expect(await baton.replay(run.workflowId)).toMatchObject({ mechanism: 'resume', from });
          expect(await afterReplay(baton, run.workflowId)).toBe('ended: refunded by refunds');
          expect(Object.values(await exported(baton, run.workflowId))).toEqual(['approved']);
        },
        { providers },
      );
    },
  );
});
