/**
 * An experiment's variant stays with its chain: a run that continues as new carries the
 * `BatonVariant` search attribute its start was given (it names its search attributes itself, so
 * nothing it does not name is carried). Runs without one carry nothing.
 */
import { workflowInfo } from '@temporalio/workflow';
import { BatonVariant } from '../src/common/messages';

/** The `BatonVariant` search attribute of this run, to carry into the next. */
export function variantAttribute(): { key: typeof BatonVariant; value: string }[] {
  const value = workflowInfo().typedSearchAttributes.get(BatonVariant);
  return typeof value === 'string' ? [{ key: BatonVariant, value }] : [];
}
