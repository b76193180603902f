/**
 * What the operations and invariants share: the harness of one sequence (the real system, the
 * model, the client), the shape of an operation, and a step — one operation with its parameters,
 * plain JSON, so a failing sequence can be saved and run again exactly.
 */
import type fc from 'fast-check';
import type { Baton } from '../../src';
import type { EffectLine } from './effects';
import type { ModelState } from './model';
import type { ModelSystem } from './system';

/** One step of a sequence: an operation by name and its generated parameters (plain JSON). */
export interface Step {
  op: string;
  params: Record<string, unknown>;
}

/** The groups operations come in (a file of operations/ each). */
export type Group = 'chain' | 'approvals' | 'conversation' | 'controls' | 'deploy' | 'faults' | 'protocols';

/** Settings of a run of sequences. */
export interface HarnessOptions {
  /** How long a step may take to settle before the chains still moving count as wedged (ms). @default 60000 */
  settleMs?: number;
  /** Run the real `baton` command for one in this many audit exports and replays (0: never). @default 6 */
  cliEvery?: number;
  /** Count violations of known open defects (known.ts) as broken too. @default false */
  strict?: boolean;
  /** Where progress lines go. */
  log?: (line: string) => void;
}

/** The harness of one sequence. */
export interface Harness {
  system: ModelSystem;
  model: ModelState;
  baton: Baton;
  options: Required<Omit<HarnessOptions, 'log'>> & Pick<HarnessOptions, 'log'>;
  /** The steps run so far (the operations whose `applies` held). */
  steps: Step[];
  /** Broken invariants found in the current step. */
  violations: string[];
  /** Violations of known open defects (known.ts), which do not stop the sequence. */
  known: string[];
  /** Lines of the side-effect log already read. */
  effectsRead: number;
  /** Side-effect lines of this sequence. */
  effects: EffectLine[];
}

/**
 * An operation a user or an operator does. `params` generates what varies; `applies` says whether
 * it can be done in the model's state (a command that does not apply is skipped, as fast-check
 * does); `run` does it on the real system and may record what it expects in the model and push
 * violations it sees at once. After it the harness waits for the system to settle, observes it,
 * and checks the invariants.
 */
export interface Operation<P extends Record<string, unknown> = Record<string, unknown>> {
  name: string;
  group: Group;
  /** Relative frequency in generated sequences. */
  weight: number;
  /** It opens a sequence (starts a chain or a conversation): every sequence begins with one to three. */
  opens?: boolean;
  params: fc.Arbitrary<P>;
  applies(m: ModelState, p: P): boolean;
  run(h: Harness, p: P): Promise<void>;
}

/** An operation with its parameter type forgotten, for the registry. */
export type AnyOperation = Operation<Record<string, unknown>>;

/** Define an operation (keeps its parameter type inside, forgets it outside). */
export function operation<P extends Record<string, unknown>>(op: Operation<P>): AnyOperation {
  return op as unknown as AnyOperation;
}

/** An invariant: its name (in every violation it reports), when it is checked, and its check. */
export interface Invariant {
  name: string;
  when: 'step' | 'end';
  check(h: Harness): Promise<void>;
}

/** Whether it is the real CLI's turn (one in `cliEvery` across the run, the first not among them). */
export function cliTurn(h: Harness): boolean {
  return h.options.cliEvery > 0 && ++h.system.figures.cliChances % h.options.cliEvery === 0;
}

/** Push a violation of the current step. */
export function broken(h: Harness, invariant: string, what: string): void {
  h.violations.push(`[${invariant}] ${what}`);
}

/** A short, printable form of any value. */
export function clip(value: unknown, n = 160): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text === undefined ? 'undefined' : text.length > n ? `${text.slice(0, n)}… (${text.length} chars)` : text;
}

/**
 * The name and message of an error; for Temporal's wrappers, whose message says only what kind of
 * call failed ("Workflow Update failed", "Failed to query Workflow"), what they wrap too.
 */
export function errorText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = WRAPPERS.has(err.name) ? (err as { cause?: unknown }).cause : undefined;
  return `${err.name}: ${err.message}${cause === undefined ? '' : ` (cause: ${causeText(cause)})`}`;
}

/** Temporal's errors that wrap the failure that says why. */
const WRAPPERS = new Set([
  'WorkflowUpdateFailedError',
  'WorkflowFailedError',
  'ServiceError',
  'WorkflowUpdateRPCTimeoutOrCancelledError',
]);

function causeText(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const type = (cause as { type?: unknown }).type;
  const code = (cause as { code?: unknown }).code;
  const nested = (cause as { cause?: unknown }).cause;
  return `${cause.name}${typeof type === 'string' ? ` ${type}` : ''}${typeof code === 'number' ? ` (gRPC ${code})` : ''}: ${clip(cause.message, 300)}${nested instanceof Error ? ` ← ${causeText(nested)}` : ''}`;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
