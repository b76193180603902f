import { describe, expect, it } from 'vitest';
import { ApprovalRefusedError, Baton, createWorker, defineAgent, scripted, Team, type BatonRun } from '../../src';
import type { ApprovalPolicy } from '../../src/workflow';
import type { AuditEvent } from '../../src/audit';
import { buildAudit } from '../../src/audit/chain';
import { scriptedAgent as agent } from '../helpers/agents';
import { taskQueue } from '../helpers/temporal';
import { useTimeSkippingServer } from '../helpers/timeSkipping';
import { waitFor } from '../helpers/wait';

const server = useTimeSkippingServer();
const MIN = 60_000;

/** triage hands off to refunds, which needs approval under `approval`; when it does not go ahead triage answers itself. */
const refundTeam = (approval: ApprovalPolicy) =>
  new Team([
    defineAgent({
      id: 'triage',
      instructions: 'You are triage.',
      model: scripted({
        steps: [{ handoff: { to: 'refunds', message: 'refund order 42' } }, { text: 'triage answered itself' }],
        requireAllSteps: false,
      }),
    }),
    agent('refunds', [{ text: 'refunded' }], { approval }),
  ]);

async function withTimeWorker<T>(team: Team, fn: (baton: Baton) => Promise<T>): Promise<T> {
  const queue = taskQueue();
  const worker = await createWorker({ team, connection: server.env.nativeConnection, taskQueue: queue });
  return worker.runUntil(fn(new Baton({ client: server.env.client, taskQueue: queue })));
}

/** The chain's audit from its runs' histories, followed from the first run (the test server has no visibility to list them). */
async function auditOf(run: BatonRun) {
  const runs = [];
  let runId: string | undefined = (run.handle as { firstExecutionRunId?: string }).firstExecutionRunId;
  while (runId) {
    const history = await server.env.client.workflow.getHandle(run.workflowId, runId).fetchHistory();
    const events = history.events ?? [];
    runs.push({ runId, events });
    runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return buildAudit(run.workflowId, runs);
}

type Step = Extract<
  AuditEvent,
  { kind: 'approval_reminded' | 'approval_escalated' | 'approval_overdue' | 'approval_decided' | 'approval_requested' }
>;
const policySteps = (events: AuditEvent[]) =>
  events.filter((e): e is Step =>
    ['approval_requested', 'approval_reminded', 'approval_escalated', 'approval_overdue', 'approval_decided'].includes(
      e.kind,
    ),
  );
/** Minutes after the request, on workflow time as history recorded it. */
const minutesAfter = (requested: Step, e: Step) => (Date.parse(e.at) - Date.parse(requested.at)) / MIN;

describe('approval policies on durable timers', () => {
  it('reminds, marks overdue, reassigns, notifies and finally auto-rejects, each step on the record at its time', async () => {
    const approval: ApprovalPolicy = {
      approvers: ['alice'],
      dueIn: '30 minutes',
      remindEvery: '10 minutes',
      escalation: [
        { after: '25 minutes', reassign: ['leads'] },
        { after: '40 minutes', notify: ['cto'] },
        { after: '1 hour', decide: 'reject' },
      ],
    };
    await withTimeWorker(refundTeam(approval), async (baton) => {
      const run = await baton.start('triage', 'I want a refund');
      const pending = await waitFor(
        () => run.pendingApprovals(),
        (p) => p.length > 0,
      ).then((p) => p[0]!);
      expect(pending).toMatchObject({
        approvers: ['alice'],
        policy: { dueIn: '30 minutes' },
        progress: { reminders: 0, steps: 0, overdue: false },
      });
      expect(Date.parse(pending.dueAt!) - Date.parse(pending.requestedAt)).toBe(30 * MIN);
      const result = await run.result();
      expect(result).toMatchObject({ output: 'triage answered itself', finalAgent: 'triage', handoffChain: [] });

      const steps = policySteps((await auditOf(run)).events);
      const requested = steps[0]!;
      expect(requested.kind).toBe('approval_requested');
      const seen = steps.slice(1).map((e) => [e.kind, Math.round(minutesAfter(requested, e))]);
      expect(seen).toEqual([
        ['approval_reminded', 10],
        ['approval_reminded', 20],
        ['approval_escalated', 25],
        ['approval_overdue', 30],
        ['approval_reminded', 30],
        ['approval_escalated', 40],
        ['approval_reminded', 40],
        ['approval_reminded', 50],
        ['approval_decided', 60],
      ]);
      const reminders = steps.filter((e) => e.kind === 'approval_reminded');
      expect(reminders.map((r) => r.recipients)).toEqual([['alice'], ['alice'], ['leads'], ['leads'], ['leads']]);
      expect(steps.find((e) => e.kind === 'approval_escalated' && e.action === 'reassign')).toMatchObject({
        from: ['alice'],
        to: ['leads'],
        step: 0,
      });
      expect(steps.find((e) => e.kind === 'approval_escalated' && e.action === 'notify')).toMatchObject({
        recipients: ['cto'],
        step: 1,
      });
      expect(steps.at(-1)).toMatchObject({
        kind: 'approval_decided',
        outcome: 'timed_out',
        onTimeout: 'reject',
        escalationStep: 2,
        via: 'timeout',
      });
    });
  });

  it('after a reassignment only the new approvers decide: the old one is refused, the new one approves', async () => {
    const approval: ApprovalPolicy = {
      approvers: ['alice'],
      escalation: [
        { after: '15 minutes', reassign: ['bob'] },
        { after: '2 hours', decide: 'fail' },
      ],
    };
    await withTimeWorker(refundTeam(approval), async (baton) => {
      const run = await baton.start('triage', 'I want a refund');
      await waitFor(
        () => run.pendingApprovals(),
        (p) => p.length > 0,
      );
      await server.env.sleep(16 * MIN);
      const pending = await waitFor(
        () => run.pendingApprovals(),
        (p) => p[0]?.approvers?.[0] === 'bob',
      ).then((p) => p[0]!);
      expect(pending).toMatchObject({ approvers: ['bob'], progress: { steps: 1 } });
      await expect(baton.approve(run.workflowId, undefined, { approver: 'alice' })).rejects.toBeInstanceOf(
        ApprovalRefusedError,
      );
      await baton.approve(run.workflowId, undefined, { approver: 'bob' });
      expect(await run.result()).toMatchObject({ output: 'refunded', finalAgent: 'refunds' });
    });
  });

  it('carries the policy clock across continue-as-new: a step falls due at its time from the request, not from the new run', async () => {
    const approval: ApprovalPolicy = {
      remindEvery: '1 minute',
      escalation: [
        { after: '5 minutes', reassign: ['bob'] },
        { after: '8 minutes', decide: 'approve' },
      ],
    };
    await withTimeWorker(refundTeam(approval), async (baton) => {
      const run = await baton.start('triage', 'I want a refund', { continueAsNewAfterEvents: 20 });
      expect(await run.result()).toMatchObject({ output: 'refunded', finalAgent: 'refunds' });
      const audit = await auditOf(run);
      expect(audit.runIds.length).toBeGreaterThan(1);
      const steps = policySteps(audit.events);
      const requested = steps.find((e) => e.kind === 'approval_requested')!;
      const escalated = steps.find((e) => e.kind === 'approval_escalated')!;
      const decided = steps.find((e) => e.kind === 'approval_decided')!;
      // The wait continued as new before the step, and the step still came 5 minutes after the request.
      expect(escalated.runId).not.toBe(requested.runId);
      expect(minutesAfter(requested, escalated)).toBeCloseTo(5, 1);
      expect(minutesAfter(requested, decided)).toBeCloseTo(8, 1);
      expect(decided).toMatchObject({ outcome: 'timed_out', onTimeout: 'approve', escalationStep: 1 });
      expect(steps.filter((e) => e.kind === 'approval_escalated')).toHaveLength(1);
      const reminders = steps.filter((e) => e.kind === 'approval_reminded').map((e) => e.reminder);
      expect(reminders).toEqual([1, 2, 3, 4, 5, 6, 7]);
    });
  });
});
