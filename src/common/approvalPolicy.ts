/**
 * Checks of approval policies (an agent's `approval`) and approval rules (a team's or a run's
 * `approvals`), shared by the team's validation, the run options and the workflow's own checks.
 *
 * Workflow-safe: no I/O.
 */
import { boolean, type Check, durationAtLeast, names, oneOf, shape, shown } from './check';

/** Checks of an approval policy's fields, shared by agents, team rules and run rules. */
export const APPROVAL_POLICY_FIELDS = {
  required: boolean,
  requireSignature: boolean,
  approvers: names,
  timeout: durationAtLeast(1000, '1 second'),
  onTimeout: oneOf(['reject', 'approve', 'fail']),
};
const POLICY_KEYS = Object.keys(APPROVAL_POLICY_FIELDS);

/** Problems with an approval policy (`{required?, approvers?, timeout?, onTimeout?}`). */
export const approvalPolicyCheck: Check = shape(APPROVAL_POLICY_FIELDS, POLICY_KEYS);

/** Problems with an approval rule: a policy for handoffs into `to`, or only from `from` to `to`. */
export const approvalRuleCheck: Check = shape(
  { ...APPROVAL_POLICY_FIELDS, from: oneOfNames(), to: oneOfNames() },
  [...POLICY_KEYS, 'from'],
);

function oneOfNames(): Check {
  return (v, key) => (typeof v === 'string' && v !== '' ? [] : [`"${key}" must name an agent, got ${shown(v)}`]);
}
