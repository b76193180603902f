/**
 * `baton audit --verify` checks every vote of a quorum approval in an export, not only the final
 * record: a signed vote whose note was changed, an approval_vote event that names another approver,
 * and a delegated vote whose grant was rewritten are each refused, naming the vote. A decision that
 * is not a vote (a timeout, a policy's step) keeps the votes cast before it.
 */
import { describe, expect, it } from 'vitest';
import { defineAgent, scripted, Team, type BatonRun } from '../../src';
import { exportAudit, type AuditExport } from '../../src/audit/export';
import { verifyAuditExport } from '../../src/audit/verifyExport';
import type { ApprovalPolicy, ApprovalVote } from '../../src/common/approvals';
import { signDelegation } from '../../src/client/signing/delegation';
import { scriptedAgent as agent } from '../helpers/agents';
import { keys, teamKeys } from '../helpers/signing';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { rechained } from '../helpers/forgery';

const server = useTemporalServer();

/** triage hands off to refunds, which needs `approval` (by default alice, bob and carol, 3 of 3). */
const team = (approval: ApprovalPolicy = { quorum: { of: ['alice', 'bob', 'carol'], needed: 3 } }) =>
  new Team(
    [
      defineAgent({
        id: 'triage',
        instructions: 'You are triage.',
        model: scripted({
          steps: [{ handoff: { to: 'refunds', message: 'refund order 42' } }, { text: 'triage answered itself' }],
          requireAllSteps: false,
        }),
      }),
      agent('refunds', [{ text: 'refunded' }], { approval }),
    ],
    { approverKeys: teamKeys },
  );

const verify = (doc: AuditExport) => verifyAuditExport(doc, { acceptUntrustedHead: true });

/** `doc` with `edit` applied to a copy of it, its digests made again. */
function tampered(doc: AuditExport, edit: (events: Record<string, unknown>[]) => void): AuditExport {
  const copy = structuredClone(doc);
  edit(copy.events.map((e) => e.event as unknown as Record<string, unknown>));
  return rechained(copy, { recorded: true });
}

const decidedVotes = (events: Record<string, unknown>[]) =>
  events.find((e) => e.kind === 'approval_decided')!.votes as ApprovalVote[];

describe('baton audit --verify: the votes of a quorum', () => {
  it('verifies each vote, and refuses a changed vote, a vote event naming another approver and a rewritten grant, naming the vote', async () => {
    await withWorker(server.env, team(), async (baton) => {
      const run: BatonRun = await baton.start('triage', 'I want a refund');
      const [p] = await waitFor(
        () => run.pendingApprovals(),
        (w) => w.length === 1,
      );
      const id = p!.handoffId;
      await baton.approve(run.workflowId, {
        approvalId: id,
        approver: 'alice',
        comment: 'fine by me',
        signer: keys.alice.signer,
      });
      const grant = await signDelegation(keys.bob.signer, {
        slot: 'bob',
        delegate: 'dan',
        until: Date.now() + 86400_000,
        workflowId: run.workflowId,
      });
      await baton.approve(run.workflowId, {
        approvalId: id,
        approver: 'dan',
        onBehalfOf: 'bob',
        delegation: grant,
        comment: 'bob is away',
      });
      await baton.approve(run.workflowId, { approvalId: id, approver: 'carol' });
      expect(await run.result()).toMatchObject({ output: 'refunded' });

      const doc = exportAudit(await baton.audit(run.workflowId));
      const votes = doc.events.filter((e) => e.event.kind === 'approval_vote');
      expect(votes).toHaveLength(3);
      const ok = verify(doc);
      expect(ok.failure).toBeUndefined();
      expect(ok).toMatchObject({ ok: true, keys: ['alice-1'] });
      expect(ok.signed).toBeGreaterThanOrEqual(1);

      // alice's signed note changed, in her vote event and in the decision's votes alike.
      const note = verify(
        tampered(doc, (events) => {
          for (const v of [events.find((e) => e.kind === 'approval_vote')!, decidedVotes(events)[0]!])
            (v as { comment: string }).comment = 'not fine';
        }),
      );
      expect(note.ok).toBe(false);
      expect(note.failure).toMatchObject({
        kind: 'approval_decided',
        reason: expect.stringMatching(
          new RegExp(`^vote 1 on approval ${id} \\(stage 1, alice\\): its signature does not hold`),
        ),
      });

      // The vote event names mallory, the decision still alice.
      const renamed = verify(
        tampered(
          doc,
          (events) =>
            void ((events.find((e) => e.kind === 'approval_vote') as { approver: string }).approver = 'mallory'),
        ),
      );
      expect(renamed.failure?.reason).toBe(
        `the approval_vote at event #${votes[0]!.seq} is not vote 1 on approval ${id} (stage 1, alice) as the decision records it: one of them was changed`,
      );

      // dan's grant made to run a day longer than bob signed.
      const regranted = verify(
        tampered(doc, (events) => {
          const dan = decidedVotes(events)[1]!;
          const [h, body, sig] = dan.delegation!.grant!.split('.');
          const payload = JSON.parse(Buffer.from(body!, 'base64url').toString()) as Record<string, unknown>;
          dan.delegation!.grant = `${h}.${Buffer.from(JSON.stringify({ ...payload, exp: Number(payload.exp) + 86400 })).toString('base64url')}.${sig}`;
        }),
      );
      expect(regranted.failure?.reason).toMatch(
        new RegExp(`^vote 2 on approval ${id} \\(stage 1, dan for bob\\): delegation refused: `),
      );

      // A vote left out of the decision's record.
      const dropped = verify(tampered(doc, (events) => void decidedVotes(events).splice(2, 1)));
      expect(dropped.failure?.reason).toBe(
        `approval ${id} shows 3 approval_vote events but its decision records 2 votes: a vote was added or removed`,
      );
    });
  });

  it.each<[string, ApprovalPolicy]>([
    ['its timeout', { timeout: '2 seconds', onTimeout: 'reject' }],
    ["its policy's last step", { escalation: [{ after: '2 seconds', decide: 'reject' }] }],
  ])('keeps the votes cast before %s on the decision it makes, and the export verifies', async (_, timing) => {
    const approval: ApprovalPolicy = { quorum: { of: ['alice', 'bob', 'carol'], needed: 2 }, ...timing };
    await withWorker(server.env, team(approval), async (baton) => {
      const run = await baton.start('triage', 'I want a refund');
      const [p] = await waitFor(
        () => run.pendingApprovals(),
        (w) => w.length === 1,
      );
      await baton.approve(run.workflowId, { approvalId: p!.handoffId, approver: 'alice', signer: keys.alice.signer });
      expect(await run.result()).toMatchObject({ output: 'triage answered itself' });

      const doc = exportAudit(await baton.audit(run.workflowId));
      const events = doc.events.map((e) => e.event as unknown as Record<string, unknown>);
      expect(events.find((e) => e.kind === 'approval_decided')).toMatchObject({ outcome: 'timed_out', via: 'timeout' });
      expect(decidedVotes(events)).toEqual([
        expect.objectContaining({ stage: 0, slot: 'alice', approver: 'alice', decision: 'approve' }),
      ]);
      expect(verify(doc)).toMatchObject({ ok: true, keys: ['alice-1'] });
    });
  });
});
