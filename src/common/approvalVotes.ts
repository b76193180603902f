/**
 * Deciding a staged approval (a policy's `quorum` or `stages`) one vote at a time: whose slot a
 * decision fills, why it may not, and what the votes so far decide. A stage is approved when
 * `needed` of its slots approve; it is rejected as soon as the rejections leave too few slots to
 * reach `needed` (so "2 of 3" survives one rejection, "3 of 3" none); an approved stage hands the
 * approval to the next, and the last one's approval approves it (docs/approvals.md).
 *
 * Pure: no Temporal API, no I/O.
 */
import type { ApprovalVote, HandoffDecision, PendingApproval, StageState } from './approvals';

/** The slot decision `d` fills: its `onBehalfOf`, else the approver's own. */
export function slotOf(d: Pick<HandoffDecision, 'approver' | 'onBehalfOf'>): string {
  return d.onBehalfOf ?? d.approver;
}

/** The votes cast in `waiting`'s current stage. */
export function currentVotes(waiting: Pick<PendingApproval, 'votes' | 'stage'>): ApprovalVote[] {
  return (waiting.votes ?? []).filter((v) => v.stage === (waiting.stage ?? 0));
}

/**
 * Why `d` may not be cast on `waiting` now (before its grant and signature are judged): a slot the
 * stage does not have, one already decided, a person who already decided in this stage, or a
 * delegated decision where none is taken.
 */
export function voteProblem(waiting: PendingApproval, d: HandoffDecision): string | undefined {
  const what = waiting.tool ? 'tool call' : 'handoff';
  if (!waiting.stages) {
    return d.onBehalfOf !== undefined || d.delegation !== undefined
      ? `this ${what} is not decided by slots (its policy has no quorum or stages), so it takes no decision "onBehalfOf" another; send it without "onBehalfOf" and "delegation"`
      : undefined;
  }
  if (d.onBehalfOf !== undefined && d.onBehalfOf === d.approver)
    return `"onBehalfOf" names the approver, ${d.approver}, themself; leave it out to decide for your own slot`;
  if ((d.onBehalfOf === undefined) !== (d.delegation === undefined))
    return '"onBehalfOf" and "delegation" go together: a decision for another\'s slot carries the grant (signed by that approver or an operator) that gives it';
  const index = waiting.stage ?? 0;
  const stage = waiting.stages[index]!;
  const slot = slotOf(d);
  const at = `stage ${index + 1} of ${waiting.stages.length}`;
  if (!stage.approvers.includes(slot))
    return `${slot} may not decide ${at} of this ${what} (its approvers: ${stage.approvers.join(', ')})`;
  const votes = currentVotes(waiting);
  const filled = votes.find((v) => v.slot === slot);
  if (filled)
    return `the slot of ${slot} in ${at} was already decided (${filled.decision} by ${filled.approver}${filled.onBehalfOf ? ` for ${filled.onBehalfOf}` : ''} at ${filled.at}): each approver decides once`;
  const again = votes.find((v) => v.approver === d.approver);
  if (again)
    return `${d.approver} already decided in ${at} (${again.decision}${again.onBehalfOf ? ` for ${again.onBehalfOf}` : ''}): a person decides once a stage, so a quorum counts different people`;
  return undefined;
}

/** What the votes of a staged approval decide, with one more cast. */
export interface Tally {
  votes: ApprovalVote[];
  /** The stage it waits on now (unchanged when it was decided). */
  stage: number;
  /** Who may decide now: the current stage's slots not yet filled. */
  approvers: string[];
  /** Set when the vote decided its stage. */
  stageOutcome?: 'approved' | 'rejected';
  /** Set when the vote decided the approval. */
  outcome?: 'approved' | 'rejected';
}

/** Cast `vote` on `waiting` (whose {@link voteProblem} was none): the votes, stage and approvers after it, and what it decided. */
export function castVote(waiting: PendingApproval, vote: ApprovalVote): Tally {
  const stages = waiting.stages!;
  const index = waiting.stage ?? 0;
  const votes = [...(waiting.votes ?? []), vote];
  const stage = stages[index]!;
  const here = votes.filter((v) => v.stage === index);
  const approvals = here.filter((v) => v.decision === 'approve').length;
  const rejections = here.length - approvals;
  if (stage.approvers.length - rejections < stage.needed)
    return { votes, stage: index, approvers: open(stage, here), stageOutcome: 'rejected', outcome: 'rejected' };
  if (approvals < stage.needed) return { votes, stage: index, approvers: open(stage, here) };
  if (index === stages.length - 1)
    return { votes, stage: index, approvers: open(stage, here), stageOutcome: 'approved', outcome: 'approved' };
  return { votes, stage: index + 1, approvers: [...stages[index + 1]!.approvers], stageOutcome: 'approved' };
}

function open(stage: StageState, votes: ApprovalVote[]): string[] {
  return stage.approvers.filter((a) => !votes.some((v) => v.slot === a));
}

/**
 * Whether the votes of an approval recorded as approved meet every stage: at least `needed`
 * approvals by different people in each (the harness's and the tests' invariant).
 */
export function approvedByQuorum(stages: readonly StageState[], votes: readonly ApprovalVote[]): boolean {
  return stages.every((s, i) => {
    const yes = votes.filter((v) => v.stage === i && v.decision === 'approve');
    return (
      new Set(yes.map((v) => v.approver)).size >= s.needed &&
      new Set(yes.map((v) => v.slot)).size >= s.needed &&
      yes.every((v) => s.approvers.includes(v.slot))
    );
  });
}
