/**
 * How an option is described once, for run options and conversation options alike: its default,
 * its check and a line of help, from which the options' types, validation and resolution derive.
 *
 * Workflow-safe: no I/O.
 */
import type { Check } from './check';

/** One option: its default, how it is checked, and how a given value becomes the resolved one. */
export interface Descriptor<Input, Resolved> {
  default: Resolved;
  /** Accepts every value of `Input`. */
  check: Check<Exclude<Input, undefined>>;
  /** One line for help texts. */
  doc: string;
  /** The resolved value of a given one (e.g. a partial retry policy completed with the defaults). */
  resolve?: (value: Input) => Resolved;
}

/** A descriptor, typed by what a caller gives (`Input`) and what it resolves to. */
export const option = <Input, Resolved = Input>(d: Descriptor<Input, Resolved>) => d;

/** The type an option takes from a caller. */
export type InputOf<D> = D extends Descriptor<infer I, infer _R> ? I : never;
/** The type of an option once resolved. */
export type ResolvedOf<D> = D extends Descriptor<infer _I, infer R> ? R : never;
