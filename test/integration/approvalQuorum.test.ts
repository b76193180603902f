import { describe, expect, it } from 'vitest';
import { defineAgent, scripted, Team, type BatonRun } from '../../src';
import type { ApprovalPolicy } from '../../src/workflow';
import { buildAudit } from '../../src/audit/chain';
import { approvedByQuorum } from '../../src/common/approvalVotes';
import type { ApprovalRecord, HandoffDecision, PendingApproval } from '../../src/common/approvals';
import { approveHandoffSignal, decideHandoffUpdate } from '../../src/common/messages';
import { signDelegation } from '../../src/client/signing/delegation';
import { decisionSigner, generateApproverKey } from '../../src/client/signing/signer';
import { scriptedAgent as agent } from '../helpers/agents';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const server = useTemporalServer();
const alice = generateApproverKey({ approvers: ['alice'] });
const mallory = generateApproverKey({ approvers: ['mallory'] });
const ops = generateApproverKey({ approvers: ['ops'] });

/** triage hands off to refunds with `message`; refunds needs approval under `approval`. */
const refundTeam = (approval: ApprovalPolicy, message = 'refund order 42') =>
  new Team(
    [
      defineAgent({
        id: 'triage',
        instructions: 'You are triage.',
        model: scripted({
          steps: [{ handoff: { to: 'refunds', message } }, { text: 'triage answered itself' }],
          requireAllSteps: false,
        }),
      }),
      agent('refunds', [{ text: 'refunded' }], { approval }),
    ],
    { approverKeys: [alice.approverKey, mallory.approverKey], operatorKeys: [ops.approverKey] },
  );

const waiting = (run: BatonRun, ok: (p: PendingApproval) => boolean = () => true) =>
  waitFor(
    () => run.pendingApprovals(),
    (p) => p.length > 0 && ok(p[0]!),
  ).then((p) => p[0]!);
const decide = (
  run: BatonRun,
  d: Omit<HandoffDecision, 'decision'> & { decision?: HandoffDecision['decision'] },
): Promise<ApprovalRecord> => run.handle.executeUpdate(decideHandoffUpdate, { args: [{ decision: 'approve', ...d }] });

/** The decision is refused: the update fails with the workflow's typed refusal. */
const refused = (decided: Promise<unknown>) =>
  expect(decided).rejects.toMatchObject({ cause: { type: 'ApprovalRefusedError' } });

async function auditOf(run: BatonRun) {
  const runs = [];
  let runId: string | undefined = (run.handle as { firstExecutionRunId?: string }).firstExecutionRunId;
  while (runId) {
    const events = (await server.env.client.workflow.getHandle(run.workflowId, runId).fetchHistory()).events ?? [];
    runs.push({ runId, events });
    runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return buildAudit(run.workflowId, runs);
}

describe('approval quorum, stages and delegation', () => {
  it('2 of 3: each decision is a vote, a second one by the same approver is refused, the second approval decides', async () => {
    const approval: ApprovalPolicy = { quorum: { of: ['alice', 'bob', 'carol'], needed: 2 } };
    await withWorker(server.env, refundTeam(approval), async (baton) => {
      const run = await baton.start('triage', 'I want a refund');
      const p = await waiting(run);
      expect(p).toMatchObject({
        stages: [{ approvers: ['alice', 'bob', 'carol'], needed: 2 }],
        stage: 0,
        approvers: ['alice', 'bob', 'carol'],
      });
      const first = await decide(run, { handoffId: p.handoffId, approver: 'alice' });
      expect(first).toMatchObject({
        outcome: 'voted',
        approver: 'alice',
        votes: [{ slot: 'alice', decision: 'approve', stage: 0 }],
      });
      expect(await waiting(run, (w) => w.votes?.length === 1)).toMatchObject({ approvers: ['bob', 'carol'] });
      await refused(decide(run, { handoffId: p.handoffId, approver: 'alice' }));
      await refused(decide(run, { handoffId: p.handoffId, approver: 'dave' }));
      // By signal, a refusal is on the record (an update's is refused by its validator before history).
      await run.handle.signal(approveHandoffSignal, { handoffId: p.handoffId, approver: 'alice' });
      await waitFor(
        () => auditOf(run),
        (a) => a.events.some((e) => e.kind === 'decision_refused'),
      );
      const last = await decide(run, { handoffId: p.handoffId, approver: 'carol' });
      expect(last).toMatchObject({ outcome: 'approved', approver: 'carol' });
      expect(approvedByQuorum(p.stages!, last.votes!)).toBe(true);
      expect(await run.result()).toMatchObject({ output: 'refunded', finalAgent: 'refunds' });
      const kinds = (await auditOf(run)).events
        .map((e) => e.kind)
        .filter((k) => ['approval_vote', 'decision_refused', 'approval_stage', 'approval_decided'].includes(k));
      expect(kinds).toEqual([
        'approval_vote',
        'decision_refused',
        'approval_vote',
        'approval_stage',
        'approval_decided',
      ]);
      expect((await auditOf(run)).events.find((e) => e.kind === 'decision_refused')).toMatchObject({
        approver: 'alice',
        reason: expect.stringContaining('already decided'),
      });
    });
  });

  it('rejects as soon as the rejections make the quorum impossible', async () => {
    await withWorker(
      server.env,
      refundTeam({ quorum: { of: ['alice', 'bob', 'carol'], needed: 2 } }),
      async (baton) => {
        const run = await baton.start('triage', 'I want a refund');
        const p = await waiting(run);
        expect(
          await decide(run, { handoffId: p.handoffId, approver: 'alice', decision: 'reject', reason: 'no' }),
        ).toMatchObject({ outcome: 'voted' });
        expect(await decide(run, { handoffId: p.handoffId, approver: 'bob', decision: 'reject' })).toMatchObject({
          outcome: 'rejected',
        });
        expect(await run.result()).toMatchObject({ output: 'triage answered itself' });
      },
    );
  });

  it.each([
    ['refund large order 42', [['security'], ['finance']]],
    ['refund order 42', [['finance']]],
  ])('the arguments choose the stages (%s), decided in order', async (message, stages) => {
    const approval: ApprovalPolicy = {
      stages: [
        { approvers: ['security'], when: { arg: 'message', op: 'matches', value: 'large' } },
        { approvers: ['finance'] },
      ],
    };
    await withWorker(server.env, refundTeam(approval, message), async (baton) => {
      const run = await baton.start('triage', 'I want a refund');
      const p = await waiting(run);
      expect(p.stages!.map((s) => s.approvers)).toEqual(stages);
      expect(p.approvers).toEqual(stages[0]);
      if (stages.length === 2) {
        await refused(decide(run, { handoffId: p.handoffId, approver: 'finance' }));
        expect(await decide(run, { handoffId: p.handoffId, approver: 'security' })).toMatchObject({ outcome: 'voted' });
        expect(await waiting(run, (w) => w.stage === 1)).toMatchObject({ approvers: ['finance'] });
      }
      expect(await decide(run, { handoffId: p.handoffId, approver: 'finance' })).toMatchObject({ outcome: 'approved' });
      expect(await run.result()).toMatchObject({ output: 'refunded' });
    });
  });

  it("bob decides for alice with alice's grant; a grant forged with another's key is refused and recorded", async () => {
    await withWorker(server.env, refundTeam({ quorum: { of: ['alice', 'carol'], needed: 2 } }), async (baton) => {
      const run = await baton.start('triage', 'I want a refund');
      const p = await waiting(run);
      const until = Date.now() + 3 * 86400_000;
      const forged = await signDelegation(decisionSigner(mallory.privateJwk), {
        slot: 'alice',
        delegate: 'bob',
        until,
        operator: 'mallory',
      });
      await refused(decide(run, { handoffId: p.handoffId, approver: 'bob', onBehalfOf: 'alice', delegation: forged }));
      await refused(decide(run, { handoffId: p.handoffId, approver: 'bob', onBehalfOf: 'alice' }));
      await run.handle.signal(approveHandoffSignal, {
        handoffId: p.handoffId,
        approver: 'bob',
        onBehalfOf: 'alice',
        delegation: forged,
      } as never);
      const recorded = await waitFor(
        () => auditOf(run),
        (a) => a.events.some((e) => e.kind === 'decision_refused'),
      );
      expect(recorded.events.find((e) => e.kind === 'decision_refused')).toMatchObject({
        approver: 'bob',
        reason: expect.stringContaining('delegation refused'),
      });
      const grant = await signDelegation(decisionSigner(alice.privateJwk), {
        slot: 'alice',
        delegate: 'bob',
        until,
        workflowId: run.workflowId,
      });
      const vote = await decide(run, {
        handoffId: p.handoffId,
        approver: 'bob',
        onBehalfOf: 'alice',
        delegation: grant,
      });
      expect(vote.votes![0]).toMatchObject({
        slot: 'alice',
        approver: 'bob',
        onBehalfOf: 'alice',
        delegation: { grantedBy: 'alice', authority: 'approver', kid: alice.approverKey.kid },
      });
      const byOps = await signDelegation(decisionSigner(ops.privateJwk), {
        slot: 'carol',
        delegate: 'dan',
        until,
        operator: 'ops',
      });
      expect(
        await decide(run, { handoffId: p.handoffId, approver: 'dan', onBehalfOf: 'carol', delegation: byOps }),
      ).toMatchObject({ outcome: 'approved', onBehalfOf: 'carol' });
      await run.result();
      const events = (await auditOf(run)).events;
      expect(events.filter((e) => e.kind === 'delegated')).toMatchObject([
        { slot: 'alice', delegate: 'bob', grantedBy: 'alice' },
        { slot: 'carol', delegate: 'dan', grantedBy: 'ops', authority: 'operator' },
      ]);
      // Refused by the update's validator, so not in history; a forged grant sent by signal is.
      expect(events.filter((e) => e.kind === 'approval_vote').map((e) => (e as { approver: string }).approver)).toEqual(
        ['bob', 'dan'],
      );
    });
  });

  it('carries the votes across continue-as-new: the vote cast before counts after', async () => {
    await withWorker(
      server.env,
      refundTeam({ quorum: { of: ['alice', 'bob', 'carol'], needed: 3 } }),
      async (baton) => {
        const run = await baton.start('triage', 'I want a refund', { continueAsNewAfterEvents: 20 });
        const p = await waiting(run);
        const first = (run.handle as { firstExecutionRunId?: string }).firstExecutionRunId;
        await decide(run, { handoffId: p.handoffId, approver: 'alice' });
        await decide(run, { handoffId: p.handoffId, approver: 'bob' });
        await waitFor(
          () => run.handle.describe(),
          (d) => d.runId !== first,
        );
        expect(await waiting(run)).toMatchObject({ votes: [{ slot: 'alice' }, { slot: 'bob' }], approvers: ['carol'] });
        await refused(decide(run, { handoffId: p.handoffId, approver: 'bob' }));
        expect(await decide(run, { handoffId: p.handoffId, approver: 'carol' })).toMatchObject({ outcome: 'approved' });
        expect(await run.result()).toMatchObject({ output: 'refunded' });
        expect((await auditOf(run)).runIds.length).toBeGreaterThan(1);
      },
    );
  });
});
