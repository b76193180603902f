/**
 * Human approval of handoffs: the policy that applies to an edge, as a guard that answers `wait`.
 * The waiting itself is the approval desk's (`chain/desk.ts`).
 */
import type { ApprovalPolicy, ApprovalRule } from '../../src/common/approvals';
import type { TeamSpec } from '../../src/common/team';
import { CONTINUE, type Guard } from './guard';

/** The policy that applies to `from` → `to`: run rules, then team rules (edge before target), then the target's own. */
export function resolveApprovalPolicy(team: TeamSpec, runRules: ApprovalRule[], from: string, to: string): ApprovalPolicy | undefined {
  const match = (rules: ApprovalRule[]) =>
    rules.find((r) => r.to === to && r.from === from) ?? rules.find((r) => r.to === to && r.from === undefined);
  const policy = match(runRules) ?? match(team.approvals) ?? team.agents[to]?.approval;
  return policy && policy.required !== false ? policy : undefined;
}

export const approvalGuard: Guard = {
  name: 'approvals',
  beforeHandoff(s, h) {
    const policy = resolveApprovalPolicy(s.team, s.options.approvals, h.from, h.to);
    return policy ? { kind: 'wait', policy } : CONTINUE;
  },
};
