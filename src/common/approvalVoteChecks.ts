/**
 * Checks of what a staged approval carries (its votes, the delegation grants they used) and of a
 * decision's identity, for the state a run carries into its next one (approvalStateChecks.ts).
 *
 * Workflow-safe: no I/O.
 */
import type { ApprovalVote, DecisionIdentity, DelegationUse } from './approvals';
import { isoTime, nonEmptyString, oneOf, shapeOf, string, count } from './check';

/** How a decision's approver was established. */
export const decisionIdentity = shapeOf<DecisionIdentity>()(
  {
    method: oneOf(['signed', 'token', 'claimed']),
    kid: string,
    keySource: oneOf(['team', 'run']),
    issuer: string,
    subject: string,
    passkey: shapeOf<NonNullable<DecisionIdentity['passkey']>>()({ origin: string, signCount: count }),
  },
  ['kid', 'keySource', 'issuer', 'subject', 'passkey'],
);

const delegationUse = shapeOf<DelegationUse>()({
  grantedBy: nonEmptyString,
  authority: oneOf(['approver', 'operator']),
  kid: string,
  until: isoTime,
  grant: string,
});

/** One vote of a staged approval, as a waiting approval and its record carry it. */
export const approvalVoteCheck = shapeOf<ApprovalVote>()(
  {
    stage: count,
    slot: nonEmptyString,
    approver: nonEmptyString,
    decision: oneOf(['approve', 'reject']),
    at: isoTime,
    via: oneOf(['signal', 'update']),
    comment: string,
    reason: string,
    onBehalfOf: nonEmptyString,
    delegation: delegationUse,
    identity: decisionIdentity,
    signature: string,
  },
  ['comment', 'reason', 'onBehalfOf', 'delegation', 'identity', 'signature'],
);
