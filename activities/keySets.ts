import { log } from '@temporalio/activity';
import type { KeySetRecord } from '../src/common/signatures/jwks';
import type { TeamSpec } from '../src/common/team';

/** A published key set as new chains find it: fetched well, failing on a copy that still serves, or failing with none of its keys trusted. */
type KeySetState = 'fetched' | 'stale' | 'untrusted';

const stateOf = (set: KeySetRecord): KeySetState =>
  set.error === undefined ? 'fetched' : set.keys.length > 0 ? 'stale' : 'untrusted';

/**
 * The snapshots one worker's new chains record: the team's, with the keys its published key sets
 * give now. A set the worker could not fetch again is recorded with the failure: the chain starts
 * with the last good copy's keys, or none of that set's once the copy is too old. The worker logs a
 * set when its state changes (its first failure, its copy too old to trust, its recovery), not with
 * every chain started while it is down.
 */
export function keySetSnapshots(): (spec: TeamSpec, keySets: KeySetRecord[]) => TeamSpec {
  // Every set fetched well when the worker started; a set that did not stopped the start.
  const states = new Map<string, KeySetState>();
  return (spec, keySets) => {
    for (const set of keySets) {
      const state = stateOf(set);
      if (state === (states.get(set.url) ?? 'fetched')) continue;
      states.set(set.url, state);
      const meta = { url: set.url, fetchedAt: set.fetchedAt };
      if (set.error !== undefined) log.warn(`the team's key set ${set.url} ${set.error}`, meta);
      else
        log.info(
          `the team's key set ${set.url} is fetched again: new chains trust its keys as fetched at ${set.fetchedAt}`,
          meta,
        );
    }
    return { ...spec, keySets };
  };
}
