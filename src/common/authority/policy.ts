/**
 * The approval policy that applies to a handoff, and where a chain is entered: the rules the
 * approvals guard, the authority checks and the audit read alike.
 *
 * Workflow-safe: no I/O.
 */
import type { ApprovalPolicy, ApprovalRule } from '../approvals';
import type { TeamSpec } from '../team';

/**
 * The `from` of a chain's entry: a start (or a replay) at an agent is judged as a handoff from
 * here into that agent. No agent id can be it (ids start with a letter).
 */
export const ENTRY_SOURCE = '(start)';

/** The policy that applies to `from` → `to`: run rules, then team rules (edge before target), then the target's own. */
export function resolveApprovalPolicy(
  team: Pick<TeamSpec, 'approvals' | 'agents'>,
  runRules: readonly ApprovalRule[],
  from: string,
  to: string,
): ApprovalPolicy | undefined {
  const match = (rules: readonly ApprovalRule[]) =>
    rules.find((r) => r.to === to && r.from === from) ?? rules.find((r) => r.to === to && r.from === undefined);
  const policy = match(runRules) ?? match(team.approvals) ?? team.agents[to]?.approval;
  return policy && policy.required !== false ? policy : undefined;
}

/**
 * The approval that entering `agent` directly needs: its own policy as a handoff from
 * {@link ENTRY_SOURCE}, else the policy of any handoff into it (an agent behind one gated edge is
 * gated: entering it directly must not skip that edge's approval). `undefined`: not gated.
 */
export function entryPolicy(
  team: Pick<TeamSpec, 'approvals' | 'agents'>,
  runRules: readonly ApprovalRule[],
  agent: string,
): ApprovalPolicy | undefined {
  const direct = resolveApprovalPolicy(team, runRules, ENTRY_SOURCE, agent);
  if (direct) return direct;
  for (const from of Object.keys(team.agents)) {
    const policy = resolveApprovalPolicy(team, runRules, from, agent);
    if (policy) return policy;
  }
  return undefined;
}
