/** The start's check of a `deadline` given as a time. */
import { durationMs } from '../common/check';

/**
 * Why a `deadline` given as a time is refused at the start: it has passed, and the chain would fail
 * at its first step. (The workflow cannot tell: it checks options again whenever a run continues.)
 */
export function deadlinePassed(deadline: string | number | undefined, now: number): string | undefined {
  if (typeof deadline !== 'string' || durationMs(deadline) !== undefined) return undefined;
  const at = Date.parse(deadline);
  return at <= now
    ? `"deadline" ${deadline} has passed (it is ${new Date(now).toISOString()}): give a later time, or a duration from the start such as "10 minutes"`
    : undefined;
}
