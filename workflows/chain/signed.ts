/**
 * A decision's signature, judged where the decision applies: verified against the keys the chain
 * trusts (its team's and its run's), required when the approval's policy or the run says so, and
 * otherwise the approver is the name the sender claimed. The verdict names how the approver was
 * established, for the record. A delegation grant a decision carries is judged here too.
 *
 * Pure: no Temporal API, no I/O.
 */
import type { DecisionIdentity, HandoffDecision, PendingApproval } from '../../src/common/approvals';
import type { ChainState } from '../../src/common/state';
import { verifyDelegation, type VerifiedGrant } from '../../src/common/signatures/delegation';
import { trustedKeys } from '../../src/common/signatures/keys';
import { lastSignCount } from '../../src/common/signatures/passkey';
import { factsOfDecision } from '../../src/common/signatures/payload';
import { type SignatureProblem, verifyDecisionSignature } from '../../src/common/signatures/verify';

/** How the approver of a decision was established, or why its signature is refused. */
export type Signed =
  { ok: true; identity: DecisionIdentity } | { ok: false; problem: SignatureProblem; reason: string };

/** Where and when a decision is judged: the chain it applies in (its workflow id) and its arrival (ms, workflow time). */
export interface SignatureBench {
  workflowId: string;
  at: number;
}

/** Judge the signature of `d` on `waiting`, in the chain `s`. */
export function judgeSignature(
  s: ChainState,
  waiting: PendingApproval,
  d: HandoffDecision,
  bench: SignatureBench,
): Signed {
  if (d.signature === undefined) {
    if (!waiting.requireSignature) return { ok: true, identity: { method: 'claimed' } };
    return {
      ok: false,
      problem: 'missing',
      reason: `${waiting.tool ? 'this tool call' : 'this handoff'} needs a signed decision: sign it with a key the chain trusts for ${d.approver} (baton.approve(…, {signer}), baton approve --key <file>, the HTTP service's key, or a signature made as docs/signatures.md shows)`,
    };
  }
  const keys = trustedKeys(s.team, s.options.approverKeys);
  const verdict = verifyDecisionSignature(
    d.signature,
    factsOfDecision(bench.workflowId, waiting, d),
    keys,
    { requestedAt: Date.parse(waiting.requestedAt), arrivedAt: bench.at },
    (kid) => lastSignCount(s.approvals.decided, kid),
  );
  return verdict.ok ? { ok: true, identity: verdict.identity } : verdict;
}

/** The grant of decision `d` for another's slot, judged against the keys chain `s` trusts, at `bench`. */
export function judgeGrant(
  s: ChainState,
  d: HandoffDecision,
  bench: SignatureBench | undefined,
): { ok: true; grant: VerifiedGrant } | { ok: false; reason: string } {
  if (!bench || d.delegation === undefined || d.onBehalfOf === undefined)
    return {
      ok: false,
      reason:
        'this chain takes no decision for another\'s slot: "onBehalfOf" needs a staged approval and its "delegation" grant',
    };
  const keys = { approvers: trustedKeys(s.team, s.options.approverKeys), operators: s.team.operatorKeys ?? [] };
  return verifyDelegation(
    {
      grant: d.delegation,
      slot: d.onBehalfOf,
      delegate: d.approver,
      workflowId: bench.workflowId,
      arrivedAt: bench.at,
    },
    keys,
  );
}
