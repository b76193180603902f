/**
 * What the approvals test of the command (approvals.test.ts) does again and again: run a team's
 * agent with the real `baton run` on a terminal, wait until a chain's approval is listed by
 * `baton pending`, and read a terminal's text without readline's escape sequences.
 */
import type { Baton, BatonRun } from '../../src';
import { waitFor } from '../helpers/wait';
import { startCli, type CliProcess } from './command';

/** `baton run <agent> <input> --team <team> --task-queue <taskQueue>` on a terminal, with `env`. */
export function runOnTerminal(
  o: { agent: string; input: string; team: string; taskQueue: string },
  env: Record<string, string | undefined>,
): CliProcess {
  return startCli(['run', o.agent, o.input, '--team', o.team, '--task-queue', o.taskQueue], env, undefined, {
    terminal: true,
  });
}

/** The one approval `run` waits for, once `baton pending` (the library's) lists it. */
export async function listedApproval<Output>(baton: Baton, run: BatonRun<Output>) {
  const [waiting] = await waitFor(
    () => run.pendingApprovals(),
    (p) => p.length === 1,
  );
  await waitFor(
    () => baton.pending(),
    (all) => all.some((p) => p.workflowId === run.workflowId),
  );
  return waiting!;
}

/** `text` without the escape sequences of readline's line editing (ESC [ … letter). */
export function withoutEscapes(text: string): string {
  return text
    .split('\x1b[')
    .map((part, i) => (i === 0 ? part : part.replace(/^[0-9;]*[A-Za-z]/, '')))
    .join('');
}
