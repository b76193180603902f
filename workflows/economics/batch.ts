/**
 * The checks of a batch of questions (a ledger's reservations, a breaker's questions): a list of at
 * most {@link MAX_BATCH}, each checked as one question alone is, its problems named by its place.
 *
 * Pure: no Temporal API, no I/O.
 */
import { MAX_BATCH } from '../../src/common/economics/messages';

/** Problems with `batch`, each question's prefixed with its index. */
export function batchProblems(batch: unknown, problemsOf: (question: unknown) => string[]): string[] {
  if (!Array.isArray(batch) || batch.length === 0 || batch.length > MAX_BATCH)
    return [`a batch must be a list of 1 to ${MAX_BATCH} questions`];
  return batch.flatMap((q, i) => problemsOf(q).map((p) => `[${i}] ${p}`));
}
