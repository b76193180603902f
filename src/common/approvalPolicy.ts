/**
 * Checks of approval policies (an agent's `approval`) and approval rules (a team's or a run's
 * `approvals`), shared by the team's validation, the run options and the workflow's own checks.
 *
 * Workflow-safe: no I/O.
 */
import type { ApprovalPolicy, ApprovalRule } from './approvals';
import { boolean, type Check, durationAtLeast, names, oneOf, shapeOf, shown } from './check';

/** Checks of an approval policy's fields, shared by agents, team rules and run rules. */
export const APPROVAL_POLICY_FIELDS = {
  required: boolean,
  requireSignature: boolean,
  approvers: names,
  timeout: durationAtLeast(1000, '1 second'),
  onTimeout: oneOf(['reject', 'approve', 'fail']),
};
const POLICY_KEYS = ['required', 'requireSignature', 'approvers', 'timeout', 'onTimeout'] as const;

/** Problems with an approval policy (`{required?, approvers?, timeout?, onTimeout?}`). */
export const approvalPolicyCheck: Check<ApprovalPolicy> = shapeOf<ApprovalPolicy>()(APPROVAL_POLICY_FIELDS, POLICY_KEYS);

/** Problems with an approval rule: a policy for handoffs into `to`, or only from `from` to `to`. */
export const approvalRuleCheck: Check<ApprovalRule> = shapeOf<ApprovalRule>()(
  { ...APPROVAL_POLICY_FIELDS, from: oneOfNames(), to: oneOfNames() },
  [...POLICY_KEYS, 'from'],
);

function oneOfNames(): Check<string> {
  return (v, key) => (typeof v === 'string' && v !== '' ? [] : [`"${key}" must name an agent, got ${shown(v)}`]);
}
