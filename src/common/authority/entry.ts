/**
 * Where a chain may be entered: a team names the agents a start may enter directly; entering a
 * gated agent (one a handoff into needs approval for) any other way waits for that approval, or is
 * refused, as the team chooses. The workflow applies the rule to every start, whoever sent it; the
 * library, the CLI and the HTTP service refuse early with the same error.
 *
 * Workflow-safe: no I/O.
 */
import type { ApprovalPolicy, ApprovalRule } from '../approvals';
import type { TeamSpec } from '../team';
import { entryPolicy } from './policy';

export { type EntryRules, GatedEntry, entryRulesProblems } from './entryRules';

/** What a start at `agent` must do first. */
export type EntryVerdict =
  | { kind: 'enter' }
  | { kind: 'approve'; policy: ApprovalPolicy }
  | { kind: 'refuse'; reason: string; entries: string[] };

/** The agents a chain of `team` may be entered at directly. */
export function directEntries(team: Pick<TeamSpec, 'agents' | 'approvals' | 'entry'>): string[] {
  return team.entry?.agents ?? Object.keys(team.agents).filter((id) => !entryPolicy(team, [], id));
}

/** Judge a start at `agent`, under the team's rules and the run's own approval rules (which may only add to them). */
export function judgeEntry(
  team: Pick<TeamSpec, 'agents' | 'approvals' | 'entry'>,
  runRules: readonly ApprovalRule[],
  agent: string,
): EntryVerdict {
  const listed = team.entry?.agents?.includes(agent);
  if (listed) return { kind: 'enter' };
  const policy = entryPolicy(team, runRules, agent);
  const entries = directEntries(team);
  if (!policy)
    return team.entry?.agents
      ? { kind: 'refuse', reason: `"${agent}" is not an entry of this team`, entries }
      : { kind: 'enter' };
  if ((team.entry?.onGated ?? 'approve') === 'approve') return { kind: 'approve', policy };
  return {
    kind: 'refuse',
    reason: `"${agent}" is gated: a handoff into it needs approval${policy.approvers ? ` by ${policy.approvers.join(', ')}` : ''}, and the team refuses starts there`,
    entries,
  };
}
