/**
 * What arrived from outside and could not be read: a payload that is not JSON (`NaN`, truncated
 * text, another encoding), or one too large to read at all. Workflows read what arrives themselves
 * (`workflows/arrivals.ts`) and hand such a payload on as an {@link UnreadableArrival}, which every
 * validator refuses like any other bad input, naming what is wrong and what is valid.
 *
 * Workflow-safe: no I/O.
 */
import { type SizeProblem, sizeMessage } from './limits';

/** A payload that could not be read: why, and when it was too large, its size against the limit. */
export class UnreadableArrival {
  constructor(
    /** Why, as a sentence's end: `is not JSON (Unexpected token 'N', "NaN" is not valid JSON)`. */
    readonly why: string,
    /** Set when it was too large to read: the refusal is then an `InputTooLargeError`. */
    readonly size?: SizeProblem,
  ) {}

  /** What is wrong, naming `what` arrived: `the decision is not JSON (…)`, `"decision" is 1900000 bytes; the limit is 81920 bytes`. */
  problem(what: string): string {
    return this.size ? sizeMessage(this.size) : `${what} ${this.why}`;
  }
}

/** Whether `value` is a payload that could not be read. */
export function isUnreadable(value: unknown): value is UnreadableArrival {
  return value instanceof UnreadableArrival;
}
