/**
 * A migration onto the current team (`baton replay --on-current-team`) keeps what policy updates
 * tightened on the chain: each approval the chain ran under that asks more than the current team's
 * (and nothing less) takes its place; where the current team asks more, or the two ask different
 * things, the current team's stands.
 *
 * Workflow-safe: no I/O.
 */
import type { ApprovalRule } from '../approvals';
import type { TeamSpec } from '../team';
import { policyLoosenings, policyTightenings, teamPolicyOf, toolLoosening } from './policyUpdate';
import { policyLoosening } from './protective';

/** `current` with the approvals of `carried` (the team the chain ran under, its policy updated) that ask more. */
export function keepTightenings<T extends TeamSpec>(
  current: T,
  carried: Pick<TeamSpec, 'agents' | 'approvals' | 'policyVersion'>,
  runRules: readonly ApprovalRule[],
): T {
  const agents: TeamSpec['agents'] = {};
  for (const [id, now] of Object.entries(current.agents)) {
    const before = carried.agents[id];
    if (!before) {
      agents[id] = now;
      continue;
    }
    const stricter =
      policyLoosening(before.approval, now.approval) !== undefined &&
      policyLoosening(now.approval, before.approval) === undefined;
    const toolApprovals = { ...now.toolApprovals };
    for (const [tool, spec] of Object.entries(before.toolApprovals ?? {})) {
      if (!now.tools.some((t) => t.name === tool)) continue;
      if (
        toolLoosening(spec, toolApprovals[tool]) !== undefined &&
        toolLoosening(toolApprovals[tool], spec) === undefined
      )
        toolApprovals[tool] = spec;
    }
    agents[id] = {
      ...now,
      ...(stricter ? { approval: before.approval } : {}),
      ...(Object.keys(toolApprovals).length > 0 ? { toolApprovals } : {}),
    };
  }
  const merged = { ...current, agents };
  // The team's own rules: the carried ones when they ask more and nothing less.
  const withRules = { ...teamPolicyOf(merged), approvals: carried.approvals };
  const rulesStricter =
    policyLoosenings(merged, runRules, withRules).length === 0 &&
    policyTightenings(merged, runRules, withRules).length > 0;
  return {
    ...merged,
    ...(rulesStricter ? { approvals: carried.approvals } : {}),
    ...(carried.policyVersion !== undefined ? { policyVersion: carried.policyVersion } : {}),
  };
}
