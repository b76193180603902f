import { log } from '@temporalio/activity';
import type { KeySetRecord } from '../src/common/signatures/jwks';
import type { TeamSpec } from '../src/common/team';

/**
 * The snapshot a new chain records: the team's, with the keys its published key sets give now. A
 * set the worker could not fetch again is recorded with the failure (and logged): the chain starts
 * with the last good copy's keys, or none of that set's once the copy is too old.
 */
export function withKeySets(spec: TeamSpec, keySets: KeySetRecord[]): TeamSpec {
  for (const set of keySets)
    if (set.error !== undefined)
      log.warn(`the team's key set ${set.url} ${set.error}`, { url: set.url, fetchedAt: set.fetchedAt });
  return { ...spec, keySets };
}
