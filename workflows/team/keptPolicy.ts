/**
 * A migration onto the current team keeps what policy updates tightened on the chain or
 * conversation (src/common/authority/carriedPolicy.ts): decided by the `baton-migration-keeps-policy`
 * patch, and only for a run whose policy an update changed.
 */
import { keepTightenings } from '../../src/common/authority/carriedPolicy';
import { Patches } from '../../src/common/patches';
import type { ChainState } from '../../src/common/state';
import { hasPatch } from '../patches';

/** `next` (on the current team) with the approvals of `before` (the team it ran under) that ask more. */
export function withKeptPolicy(next: ChainState, before: ChainState['team']): ChainState {
  if (before.policyVersion === undefined || !hasPatch(Patches.MIGRATION_KEEPS_POLICY)) return next;
  return { ...next, team: keepTightenings(next.team, before, next.options.approvals) };
}
