/**
 * The votes of a quorum or staged approval in an export (`baton audit --verify`): each
 * `approval_vote` event is a vote the decision records, in order; each vote that carries a
 * signature holds with the same pure verification the workflow ran, its identity as signed; and
 * each grant of an approver's own slot verifies with the chain's keys. A vote changed after the
 * fact is named by its stage, its approver and its slot.
 */
import type { ApprovalRecord, ApprovalVote, PendingApproval } from '../common/approvals';
import { isRecord } from '../common/check';
import { canonicalJson } from '../common/signatures/canonical';
import { verifyDelegation } from '../common/signatures/delegation';
import type { ApproverKey, TrustedKey } from '../common/signatures/keys';
import { factsOfDecision } from '../common/signatures/payload';
import { verifyDecisionSignature } from '../common/signatures/verify';

/** An `approval_vote` event as the export shows it, with its place. */
export interface VoteEvent {
  seq: number;
  event: Record<string, unknown>;
}

/** What the vote checks count. */
export interface VoteCounts {
  signed: number;
  claimed: number;
  keys: string[];
}

/** The fields an `approval_vote` event and the decision's vote both show. */
const SHOWN = ['stage', 'slot', 'approver', 'decision', 'onBehalfOf', 'comment', 'reason'] as const;

/**
 * What is wrong with the votes of decision `r` on the approval `asked` of chain `workflowId`,
 * given the `approval_vote` events seen before it; nothing when they hold.
 */
export function votesProblem(
  workflowId: string,
  asked: Pick<PendingApproval, 'handoffId' | 'from' | 'to' | 'tool' | 'requireSignature'>,
  r: ApprovalRecord,
  events: readonly VoteEvent[],
  keys: readonly TrustedKey[],
  counts: VoteCounts,
  trusted?: readonly ApproverKey[],
): string | undefined {
  const votes: unknown = r.votes ?? [];
  if (!Array.isArray(votes) || !votes.every(isRecord))
    return `the decision of approval ${r.handoffId} keeps its votes as a list of {stage, slot, approver, decision, at, …}`;
  if (events.length !== votes.length)
    return `approval ${r.handoffId} shows ${events.length} approval_vote events but its decision records ${votes.length} votes: a vote was added or removed`;
  for (const [i, v] of (votes as unknown as ApprovalVote[]).entries()) {
    const name = `vote ${i + 1} on approval ${r.handoffId} (stage ${Number(v.stage) + 1}, ${String(v.approver)}${v.onBehalfOf !== undefined ? ` for ${String(v.onBehalfOf)}` : ''})`;
    const shown = events[i]!;
    if (canonicalJson(pick(shown.event)) !== canonicalJson(pick(v as unknown as Record<string, unknown>)))
      return `the approval_vote at event #${shown.seq} is not ${name} as the decision records it: one of them was changed`;
    const problem = voteProblem(workflowId, asked, r, v, keys, counts, trusted);
    if (problem) return `${name}: ${problem}`;
  }
  return undefined;
}

function voteProblem(
  workflowId: string,
  asked: Pick<PendingApproval, 'handoffId' | 'from' | 'to' | 'tool' | 'requireSignature'>,
  r: ApprovalRecord,
  v: ApprovalVote,
  keys: readonly TrustedKey[],
  counts: VoteCounts,
  trusted?: readonly ApproverKey[],
): string | undefined {
  if (
    typeof v.approver !== 'string' ||
    typeof v.slot !== 'string' ||
    (v.decision !== 'approve' && v.decision !== 'reject') ||
    typeof v.at !== 'string' ||
    Number.isNaN(Date.parse(v.at))
  ) {
    return 'it is not a vote {stage, slot, approver, decision, at}';
  }
  if (v.slot !== (v.onBehalfOf ?? v.approver))
    return `it fills the slot of ${v.slot}, but was cast ${v.onBehalfOf !== undefined ? `for ${v.onBehalfOf}` : `by ${v.approver} for their own`}`;
  const grant = grantProblem(workflowId, v, keys);
  if (grant) return grant;
  if (v.signature === undefined) {
    if (v.identity && v.identity.method !== 'claimed')
      return `the vote says its approver was ${v.identity.method}, but it carries no signature`;
    if (asked.requireSignature === true)
      return 'the approval required signed decisions, but this vote carries no signature: a signed vote was stripped to a claimed one';
    counts.claimed++;
    return undefined;
  }
  const facts = factsOfDecision(workflowId, asked, {
    approver: v.approver,
    decision: v.decision,
    ...(v.comment !== undefined ? { comment: v.comment } : {}),
    ...(v.reason !== undefined ? { reason: v.reason } : {}),
    ...(v.onBehalfOf !== undefined ? { onBehalfOf: v.onBehalfOf } : {}),
  });
  const verdict = verifyDecisionSignature(v.signature, facts, keys, {
    requestedAt: Date.parse(r.requestedAt),
    arrivedAt: Date.parse(v.at),
  });
  if (!verdict.ok) return `its signature does not hold: ${verdict.reason}`;
  const id = verdict.identity;
  if (
    v.identity?.method !== id.method ||
    v.identity.kid !== id.kid ||
    v.identity.issuer !== id.issuer ||
    v.identity.subject !== id.subject
  )
    return `it says ${v.identity?.method ?? 'no identity'}, but the signature shows ${id.method}${id.kid ? ` with key ${id.kid}` : ''}`;
  const key = keys.find((k) => k.kid === id.kid)!;
  if (trusted && !trusted.some((k) => k.kid === key.kid && k.publicKey === key.publicKey))
    return `key ${key.kid} is not among the keys you trust (or has another public key there)`;
  counts.signed++;
  if (!counts.keys.includes(key.kid)) counts.keys.push(key.kid);
  return undefined;
}

/** A vote for another's slot: its grant as the record keeps it; one its slot's owner signed verifies with the chain's keys. */
function grantProblem(workflowId: string, v: ApprovalVote, keys: readonly TrustedKey[]): string | undefined {
  if (v.onBehalfOf === undefined)
    return v.delegation === undefined ? undefined : "it keeps a delegation grant but fills its approver's own slot";
  if (!isRecord(v.delegation) || typeof v.delegation.grant !== 'string')
    return `it was cast for ${v.onBehalfOf} but keeps no grant that gave the slot`;
  // An operator's grant verifies with the team's operator keys, which the export does not carry.
  if (v.delegation.authority !== 'approver') return undefined;
  const verdict = verifyDelegation(
    { grant: v.delegation.grant, slot: v.onBehalfOf, delegate: v.approver, workflowId, arrivedAt: Date.parse(v.at) },
    { approvers: keys, operators: [] },
  );
  if (!verdict.ok) return verdict.reason;
  if (verdict.grant.by !== v.delegation.grantedBy || verdict.grant.kid !== v.delegation.kid)
    return `its grant was signed by ${verdict.grant.by} with key ${verdict.grant.kid}, not as the vote says`;
  return undefined;
}

function pick(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(SHOWN.flatMap((k) => (o[k] !== undefined ? [[k, o[k]]] : [])));
}
