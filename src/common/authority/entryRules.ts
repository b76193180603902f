/**
 * A team's entry rules as data: which agents a chain may be entered at directly, and what entering
 * a gated agent otherwise does (see `entry.ts` for the judgement).
 *
 * Workflow-safe: no I/O.
 */
import { isRecord, shown } from '../check';

/** What entering a gated agent, not named as an entry, does. */
export const GatedEntry = {
  /** The chain waits for the approval a handoff into the agent would need, as a handoff from `(start)`. */
  APPROVE: 'approve',
  /** The start fails with `GatedEntryError`. */
  REFUSE: 'refuse',
} as const;
export type GatedEntry = (typeof GatedEntry)[keyof typeof GatedEntry];

/** A team's entry rules. Plain JSON, recorded with its snapshot. */
export interface EntryRules {
  /**
   * The agents a start may enter directly, without the approval a handoff into them needs. When
   * given, an agent not listed is no entry: a gated one is treated as `onGated` says, any other is
   * refused. @default every agent that is not gated
   */
  agents?: string[];
  /** Entering a gated agent not listed: wait for its approval, or refuse. @default "approve" */
  onGated?: GatedEntry;
}

/** Problems with a team's entry rules, each naming the field and what would be valid. */
export function entryRulesProblems(v: unknown, agents?: readonly string[]): string[] {
  if (v === undefined) return [];
  if (!isRecord(v)) return [`entry must be {agents?, onGated?}, got ${shown(v)}`];
  const problems: string[] = [];
  const extra = Object.keys(v).filter((k) => k !== 'agents' && k !== 'onGated');
  if (extra.length > 0)
    problems.push(
      `entry has unknown field(s) ${extra.map((k) => JSON.stringify(k)).join(', ')} (valid: agents, onGated)`,
    );
  if (v.onGated !== undefined && v.onGated !== 'approve' && v.onGated !== 'refuse')
    problems.push(`entry.onGated must be "approve" or "refuse", got ${shown(v.onGated)}`);
  if (v.agents !== undefined) {
    if (!Array.isArray(v.agents) || !v.agents.every((a) => typeof a === 'string'))
      problems.push(`entry.agents must list agent ids, got ${shown(v.agents)}`);
    else if (agents)
      for (const a of v.agents)
        if (!agents.includes(a))
          problems.push(`entry.agents names "${a}", which is not registered (registered: ${agents.join(', ')})`);
  }
  return problems;
}
