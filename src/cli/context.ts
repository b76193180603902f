import os from 'node:os';
import type { Print } from './print';

/** What a command gets besides its arguments. */
export interface CommandContext {
  /** Results, on stdout. */
  out: Print;
  /** Errors, warnings, and progress that must not mix with a `--json` result, on stderr. */
  err: Print;
  /** Resolves with the first SIGINT or SIGTERM the process receives. */
  interrupted: Promise<NodeJS.Signals>;
}

/** One command of the `baton` CLI, with its own usage text. */
export interface Command {
  /** How to call it, e.g. `baton audit <workflowId> [--json | --mermaid]`. */
  synopsis: string;
  /** What it does, in one line. */
  summary: string;
  /** Its arguments, options and notes, for `baton <command> --help`. */
  help: string;
  /**
   * The command prints a failed chain's typed error itself, so its in-process worker leaves the
   * "Workflow failed" warning (with the workflow's stack) out of the log.
   * @default false
   */
  reportsChainFailures?: boolean;
  /** Run it; resolves to the process exit code. */
  run(argv: string[], ctx: CommandContext): Promise<number>;
}

/** Exit codes of the `baton` command; an interrupted command exits with 128 + the signal number (130 for SIGINT). */
export const ExitCode = {
  OK: 0,
  /** The work failed: a chain failed, a decision was refused, the server could not be reached. */
  FAILURE: 1,
  /** The command line was wrong: unknown option, bad number, missing or empty input. */
  USAGE: 2,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** The exit code of a process stopped by `signal`, as shells report it. */
export function interruptedExitCode(signal: NodeJS.Signals): number {
  return 128 + (os.constants.signals[signal] ?? 2);
}

/** Thrown when a SIGINT or SIGTERM stops a command before its work is done. */
export class Interrupted extends Error {
  constructor(readonly signal: NodeJS.Signals) {
    super(`stopped by ${signal}`);
    this.name = new.target.name;
  }
}

/** `work`, or {@link Interrupted} as soon as `interrupted` resolves. */
export function interruptible<T>(work: Promise<T>, interrupted: Promise<NodeJS.Signals>): Promise<T> {
  return Promise.race([
    work,
    interrupted.then((signal): never => {
      throw new Interrupted(signal);
    }),
  ]);
}

/** How long a command may take to stop after the first signal before the CLI exits without it. */
export const STOP_GRACE_MS = 5_000;

/** The process's SIGINT and SIGTERM, as promises. */
export interface Interrupts {
  /** The first signal. */
  first: Promise<NodeJS.Signals>;
  /** A second signal, or {@link STOP_GRACE_MS} after the first: time to exit whatever the command is doing. */
  forced: Promise<NodeJS.Signals>;
  /** Stop listening. */
  dispose(): void;
}

/**
 * Listen for SIGINT and SIGTERM. The CLI handles them itself (the Temporal runtime's own handlers
 * are off) so that the first Ctrl-C stops a command instead of only starting a worker's shutdown.
 */
export function listenForInterrupts(): Interrupts {
  let first: (signal: NodeJS.Signals) => void = () => undefined;
  let forced: (signal: NodeJS.Signals) => void = () => undefined;
  const firstP = new Promise<NodeJS.Signals>((resolve) => (first = resolve));
  const forcedP = new Promise<NodeJS.Signals>((resolve) => (forced = resolve));
  let count = 0;
  let timer: NodeJS.Timeout | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    count += 1;
    if (count === 1) {
      first(signal);
      timer = setTimeout(() => forced(signal), STOP_GRACE_MS);
      timer.unref();
    } else {
      forced(signal);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    first: firstP,
    forced: forcedP,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      if (timer) clearTimeout(timer);
    },
  };
}
