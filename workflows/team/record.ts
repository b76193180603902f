/**
 * The chain's team version on the record: the `batonTeam` memo (every upsert is a history event
 * the audit reads, and visibility lists show it on any namespace) and the `BatonTeam` search
 * attribute where the worker found it registered.
 */
import { BatonTeam, TEAM_MEMO } from '../../src/common/messages';
import type { TeamSpec } from '../../src/common/team';
import type { TeamChange } from '../../src/common/version';
import type { ChainEffects } from '../chain/effects';
import { upsertAttributes } from '../searchAttributes';

/** What the `batonTeam` memo holds. */
export interface TeamRecord {
  id: string;
  hash: string;
  /** How the chain came to this team when it changed: a migration, or a conversation's upgrade between turns. */
  change?: TeamChange & { by: 'migration' | 'upgrade' };
}

/** Put `team`'s version on the record (a snapshot without a version records nothing). */
export function recordTeam(effects: ChainEffects, team: TeamSpec, change?: TeamRecord['change']): void {
  const v = team.version;
  if (!v) return;
  const record: TeamRecord = { id: v.id, hash: v.hash, ...(change ? { change } : {}) };
  effects.publish({ [TEAM_MEMO]: record });
  if (team.teamAttribute) upsertAttributes([{ key: BatonTeam, value: v.id }]);
}

/** The `BatonTeam` search attribute a continued run starts with, when the chain writes it. */
export function teamAttribute(team: TeamSpec): { key: typeof BatonTeam; value: string }[] {
  return team.version && team.teamAttribute ? [{ key: BatonTeam, value: team.version.id }] : [];
}
