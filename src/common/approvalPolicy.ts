/**
 * Checks of approval policies (an agent's `approval`) and approval rules (a team's or a run's
 * `approvals`), shared by the team's validation, the run options and the workflow's own checks.
 *
 * Workflow-safe: no I/O.
 */
import type { ApprovalPolicy, ApprovalRule } from './approvals';
import { slotPolicyProblems } from './approvalQuorum';
import { timingProblems } from './approvalTiming';
import { boolean, type Check, durationAtLeast, isRecord, names, oneOf, shapeOf, shown } from './check';

/** Checks of an approval policy's fields, shared by agents, team rules and run rules. */
export const APPROVAL_POLICY_FIELDS = {
  required: boolean,
  requireSignature: boolean,
  approvers: names,
  timeout: durationAtLeast(1000, '1 second'),
  onTimeout: oneOf(['reject', 'approve', 'fail']),
  /** When a decision is due: checked with the policy as a whole (`withTiming`), not here. */
  dueIn: () => [],
  /** How often approvers are reminded: checked with the policy as a whole (`withTiming`), not here. */
  remindEvery: () => [],
  /** The escalation steps: checked with the policy as a whole (`withTiming`), against each other and the timeout. */
  escalation: () => [],
  /** The quorum: checked with the policy as a whole (`withTiming`), which refuses it beside `approvers`, `stages` or `reassign` steps. */
  quorum: () => [],
  /** The stages: checked with the policy as a whole (`withTiming`), which refuses them beside `approvers`, `quorum` or `reassign` steps. */
  stages: () => [],
};
const POLICY_KEYS = [
  'required',
  'requireSignature',
  'approvers',
  'timeout',
  'onTimeout',
  'dueIn',
  'remindEvery',
  'escalation',
  'quorum',
  'stages',
] as const;

/** `check`, then the policy's timing fields (`dueIn`, `remindEvery`, `escalation`) and its slots (`quorum`, `stages`) as a whole. */
export function withTiming<T>(check: Check<T>): Check<T> {
  return (v, key) => [
    ...check(v, key),
    ...(isRecord(v) ? [...timingProblems(v, key), ...slotPolicyProblems(v, key)] : []),
  ];
}

/** Problems with an approval policy (`{required?, approvers?, timeout?, onTimeout?, dueIn?, remindEvery?, escalation?}`). */
export const approvalPolicyCheck: Check<ApprovalPolicy> = withTiming(
  shapeOf<ApprovalPolicy>()(APPROVAL_POLICY_FIELDS, POLICY_KEYS),
);

/** Problems with an approval rule: a policy for handoffs into `to`, or only from `from` to `to`. */
export const approvalRuleCheck: Check<ApprovalRule> = withTiming(
  shapeOf<ApprovalRule>()({ ...APPROVAL_POLICY_FIELDS, from: oneOfNames(), to: oneOfNames() }, [
    ...POLICY_KEYS,
    'from',
  ]),
);

function oneOfNames(): Check<string> {
  return (v, key) => (typeof v === 'string' && v !== '' ? [] : [`"${key}" must name an agent, got ${shown(v)}`]);
}
