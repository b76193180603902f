/**
 * Staged approvals (a policy's `quorum` or `stages`; in the model team, handoffs into support in
 * v2 wait for 2 of alice, bob and carol): votes by a slot, by someone the stage does not name, and
 * by a delegate for alice's slot with alice's grant or with a grant signed by a key nobody trusts.
 * Invariants: an approval is never decided with fewer approvals than its stages need, by different
 * people; nobody decides for a slot without a valid grant; a refused vote leaves it waiting.
 */
import fc from 'fast-check';
import { decideHandoffUpdate, type ApprovalRecord, type HandoffDecision } from '../../../src/workflow';
import { approvedByQuorum, currentVotes } from '../../../src/common/approvalVotes';
import { signDelegation } from '../../../src/client/signing/delegation';
import { broken, errorText, operation, type Harness } from '../harness';
import { ALICE, MALLORY } from '../team';
import { stillWaiting, taken, waiting, waitingFor, type Waiting } from '../waiting';

const staged = (w: Waiting) => w.p.stages !== undefined && !w.p.requireSignature;

async function send(
  h: Harness,
  w: Waiting,
  d: Omit<HandoffDecision, 'handoffId' | 'decision'> & { decision?: HandoffDecision['decision'] },
): Promise<ApprovalRecord | Error> {
  try {
    return await h.baton
      .getRun(w.root.id)
      .handle.executeUpdate(decideHandoffUpdate, { args: [{ handoffId: w.p.handoffId, decision: 'approve', ...d }] });
  } catch (err) {
    return err as Error;
  }
}

/** The decision was taken: a decided one must meet its stages; a vote leaves it waiting. */
function judged(h: Harness, w: Waiting, record: ApprovalRecord): void {
  if (record.outcome === 'approved' && !approvedByQuorum(w.p.stages!, record.votes ?? [])) {
    broken(
      h,
      'quorum-met',
      `${w.p.handoffId} in ${w.root.id} was approved with votes ${JSON.stringify(record.votes)} for stages ${JSON.stringify(w.p.stages)}`,
    );
  }
  for (const v of record.votes ?? []) {
    if (v.onBehalfOf !== undefined && v.delegation?.grantedBy === undefined)
      broken(
        h,
        'slot-needs-grant',
        `${v.approver} decided for ${v.onBehalfOf} in ${w.p.handoffId} without a verified grant`,
      );
  }
  taken(w, record, false);
}

export const quorumOperations = [
  operation({
    name: 'quorum_vote',
    group: 'approvals',
    weight: 3,
    params: fc.record({
      approval: fc.nat(),
      who: fc.constantFrom('alice', 'bob', 'carol', 'carol', 'mallory'),
      decision: fc.constantFrom<'approve' | 'reject'>('approve', 'approve', 'approve', 'reject'),
    }),
    applies: (m) => waiting(m).some(staged),
    async run(h, p) {
      const w = waitingFor(h.model, p.approval, staged)!;
      const slots = w.p.stages![w.p.stage ?? 0]!.approvers;
      const may = slots.includes(p.who) && !currentVotes(w.p).some((v) => v.slot === p.who || v.approver === p.who);
      const out = await send(h, w, { approver: p.who, decision: p.decision });
      if (out instanceof Error) {
        // A vote that lost a race (the chain moved on, a kill moved it) is refused too.
        if (may && !/ApprovalRefused|already decided|not waiting|no handoff/.test(`${out.name} ${errorText(out)}`))
          broken(h, 'decision-answered', `${p.who}'s vote on ${w.p.handoffId} failed: ${errorText(out)}`);
        if (!may) await stillWaiting(h, w, `a vote by ${p.who}, who may not decide now`);
        return;
      }
      if (!may)
        broken(
          h,
          'refusals-change-nothing',
          `${p.who} voted on ${w.p.handoffId} in ${w.root.id} without an open slot (${slots.join(', ')})`,
        );
      judged(h, w, out);
    },
  }),
  operation({
    name: 'delegated_vote',
    group: 'approvals',
    weight: 2,
    params: fc.record({ approval: fc.nat(), forged: fc.boolean() }),
    applies: (m) => waiting(m).some((w) => staged(w) && w.p.approvers?.includes('alice') === true),
    async run(h, p) {
      const w = waitingFor(h.model, p.approval, (x) => staged(x) && x.p.approvers?.includes('alice') === true)!;
      const signer = p.forged ? MALLORY.signer : ALICE.signer;
      const grant = await signDelegation(signer, { slot: 'alice', delegate: 'dan', until: Date.now() + 86_400_000 });
      const out = await send(h, w, { approver: 'dan', onBehalfOf: 'alice', delegation: grant });
      if (p.forged) {
        if (!(out instanceof Error))
          broken(
            h,
            'slot-needs-grant',
            `dan decided for alice on ${w.p.handoffId} in ${w.root.id} with a grant signed by an untrusted key`,
          );
        else await stillWaiting(h, w, 'a vote for alice with a forged grant');
        return;
      }
      if (out instanceof Error) {
        if (!/ApprovalRefused|already decided|not waiting|no handoff/.test(`${out.name} ${errorText(out)}`))
          broken(h, 'decision-answered', `dan's vote for alice on ${w.p.handoffId} failed: ${errorText(out)}`);
        return;
      }
      judged(h, w, out);
    },
  }),
];
