import { missingFor } from '../src/agents/version';
import { TeamMismatchError, toApplicationFailure } from '../src/common/errors';
import type { TeamSpec } from '../src/common/team';
import { UNVERSIONED, type TeamNeed } from '../src/common/version';

/**
 * The check every step's activity makes before it acts: a step whose chain's team needs what this
 * worker's team lacks is refused with `TeamMismatchError`, never run with something else and
 * never answered to the model. The workflow tries it again, on any worker, for the run's
 * `teamMismatchTimeout`.
 */
export function teamCheck(
  spec: () => TeamSpec,
  providers: () => string[],
): (step: string, need: TeamNeed | undefined) => void {
  return (step, need) => {
    if (!need) return;
    const own = spec();
    const missing = missingFor(need, { version: own.version!, providers: providers() });
    if (missing.length === 0) return;
    throw toApplicationFailure(
      new TeamMismatchError({
        version: need.version || UNVERSIONED,
        worker: own.version?.id ?? UNVERSIONED,
        step,
        missing,
      }),
    );
  };
}
