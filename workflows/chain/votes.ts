/**
 * The desk's side of staged approvals (a policy's `quorum` or `stages`): a decision that applies is
 * one vote, on the record as its own step (`approval_vote`; `delegated` when it filled another's
 * slot; `approval_stage` when it decided a stage), carried in the waiting approval so a worker crash
 * or a continue-as-new loses none; the vote that decides the approval makes its record.
 *
 * Pure: no Temporal API, no I/O (it reaches the chain through the {@link VoteDesk} it is given).
 */
import type {
  ApprovalRecord,
  ApprovalVote,
  DecisionIdentity,
  HandoffDecision,
  PendingApproval,
} from '../../src/common/approvals';
import { castVote, slotOf } from '../../src/common/approvalVotes';
import { clipText, LIMITS } from '../../src/common/limits';
import type { VerifiedGrant } from '../../src/common/signatures/delegation';
import { recordOf } from './decisions';
import type { ChainEvent } from './state';

/** What a vote may do to the chain: apply an event to its state, and put a step on the record. */
export interface VoteDesk {
  apply(e: ChainEvent): void;
  publish(e: { type: string } & Record<string, unknown>): void;
}

/** A judged decision on a staged approval. */
export interface Voting {
  decision: HandoffDecision;
  waiting: PendingApproval;
  identity?: DecisionIdentity;
  grant?: VerifiedGrant;
}

/**
 * Cast the vote `v` made at `at` (ms), arrived by `via`: on the record and in the chain's state.
 * Returns the approval's record when the vote decided it, else a record with outcome `voted` (an
 * update's answer: the vote counted, the approval still waits).
 */
export function takeVote(v: Voting, at: number, via: 'signal' | 'update', desk: VoteDesk): ApprovalRecord {
  const { decision: d, waiting, identity, grant } = v;
  const when = new Date(at).toISOString();
  const vote: ApprovalVote = {
    stage: waiting.stage ?? 0,
    slot: slotOf(d),
    approver: clipText(d.approver, LIMITS.approverChars),
    decision: d.decision,
    at: when,
    via,
    ...(d.decision === 'approve' && d.comment !== undefined ? { comment: clipText(d.comment, LIMITS.noteChars) } : {}),
    ...(d.decision === 'reject' && d.reason !== undefined ? { reason: clipText(d.reason, LIMITS.noteChars) } : {}),
    ...(d.onBehalfOf !== undefined ? { onBehalfOf: d.onBehalfOf } : {}),
    ...(grant && d.delegation !== undefined
      ? {
          delegation: {
            grantedBy: grant.by,
            authority: grant.authority,
            kid: grant.kid,
            until: grant.until,
            grant: d.delegation,
          },
        }
      : {}),
    ...(identity ? { identity } : {}),
    ...(identity && d.signature !== undefined ? { signature: d.signature } : {}),
  };
  const tally = castVote(waiting, vote);
  const stage = waiting.stages![vote.stage]!;
  const here = tally.votes.filter((x) => x.stage === vote.stage);
  desk.apply({
    type: 'approval_voted',
    handoffId: waiting.handoffId,
    votes: tally.votes,
    stage: tally.stage,
    approvers: tally.approvers,
  });
  const { signature: _signature, delegation: _delegation, ...shown } = vote;
  desk.publish({
    type: 'approval_vote',
    handoffId: waiting.handoffId,
    ...shown,
    needed: stage.needed,
    approvals: here.filter((x) => x.decision === 'approve').length,
    rejections: here.filter((x) => x.decision === 'reject').length,
  });
  if (vote.delegation) {
    const { grant: _grant, ...use } = vote.delegation;
    desk.publish({
      type: 'delegated',
      handoffId: waiting.handoffId,
      stage: vote.stage,
      slot: vote.slot,
      delegate: vote.approver,
      ...use,
      at: when,
    });
  }
  if (tally.stageOutcome) {
    const next = tally.outcome ? {} : { next: tally.stage, approvers: tally.approvers };
    desk.publish({
      type: 'approval_stage',
      handoffId: waiting.handoffId,
      stage: vote.stage,
      of: waiting.stages!.length,
      outcome: tally.stageOutcome,
      ...next,
      at: when,
    });
  }
  const record = recordOf(d, waiting, at, via, identity);
  const own = { ...record, votes: tally.votes, ...(d.onBehalfOf !== undefined ? { onBehalfOf: d.onBehalfOf } : {}) };
  return tally.outcome ? { ...own, outcome: tally.outcome } : { ...own, outcome: 'voted' };
}
