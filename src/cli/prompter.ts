/** How `baton run` and `baton demo` ask a person about a handoff or tool call waiting for approval. */
import readline from 'node:readline/promises';
import type { Baton } from '../client/baton';
import type { BatonRun } from '../client/run';
import { displayText } from '../common/display';
import { redactDecisionRecord, type SensitiveArguments } from '../common/sensitive';
import type { PendingApproval } from '../common/types';
import { argumentsOption, mergeOntoWaiting } from './edits';
import { decideHint, formatWaiting, type Print } from './print';
import { cliSigner } from './signing';

/** Options of {@link approvalPrompter}. */
export interface PrompterOptions {
  /** Without a terminal, approve as this approver instead of printing how to decide. */
  autoApprover?: string;
  /** Where the questions go when asking in a terminal. @default process.stdout */
  terminal?: NodeJS.WriteStream;
}

type Waiting = PendingApproval & { sensitive?: SensitiveArguments };

/**
 * How `baton run` and `baton demo` treat a handoff or tool call waiting for approval: in a
 * terminal, ask (a tool call's arguments may be edited there), again after a refused decision while
 * it still waits; otherwise print how to decide it (or decide as `autoApprover` when given).
 */
export function approvalPrompter(baton: Baton, print: Print, options: PrompterOptions = {}) {
  const terminal = options.terminal ?? process.stdout;
  return async (run: BatonRun, p: Waiting): Promise<void> => {
    print(formatWaiting(p));
    if (process.stdin.isTTY && terminal.isTTY) {
      await ask(baton, run, p, print, terminal);
    } else if (options.autoApprover) {
      const record = await baton.approve(run.workflowId, p.handoffId, {
        approver: options.autoApprover,
        comment: 'approved by the demo (no terminal to ask)',
      });
      print(
        displayText(
          `    ${record.outcome} by ${record.approver} (no terminal to ask; run it in a terminal to decide yourself)`,
        ),
      );
    } else {
      print(`    ${decideHint(run.workflowId, p.handoffId, p.tool !== undefined)}`);
    }
  };
}

async function ask(baton: Baton, run: BatonRun, p: Waiting, print: Print, terminal: NodeJS.WriteStream): Promise<void> {
  // Keys typed while nothing was asked (while agents worked, or after an earlier question) would answer this one.
  if ((await discardTypedAhead(process.stdin)) > 0) print('    (keys typed before this question are ignored)');
  const rl = readline.createInterface({ input: process.stdin, output: terminal });
  // In a prompt the terminal's Ctrl-C reaches readline, not the process: pass it on so it stops the command.
  rl.on('SIGINT', () => process.kill(process.pid, 'SIGINT'));
  const hint = decideHint(run.workflowId, p.handoffId, p.tool !== undefined);
  try {
    for (;;) {
      const decided = await askOnce(baton, run, p, rl, print, hint);
      if (decided) return;
      // Refused: asked again while it still waits (a wrong name, arguments the tool refuses).
      const waiting = await run.pendingApprovals().catch(() => [] as PendingApproval[]);
      if (!waiting.some((w) => w.handoffId === p.handoffId)) {
        print('    it no longer waits for a decision');
        return;
      }
      print('    it still waits: decide again');
    }
  } finally {
    rl.close();
  }
}

/**
 * One round of questions: `true` once decided or left waiting, `false` after a refused decision. A
 * rejection asks for its reason (the agent gets it with the rejection), so what is typed next is
 * never taken as an answer to a later question.
 */
export async function askOnce(
  baton: Baton,
  run: BatonRun,
  p: Waiting,
  rl: readline.Interface,
  print: Print,
  hint: string,
): Promise<boolean> {
  const choices = p.tool ? '[y]es / [n]o / [e]dit the arguments' : '[y]es / [n]o';
  const answer = (await rl.question(`    approve it? ${choices} / anything else leaves it waiting: `))
    .trim()
    .toLowerCase();
  const edit = p.tool !== undefined && (answer === 'e' || answer === 'edit');
  if (!edit && answer !== 'y' && answer !== 'yes' && answer !== 'n' && answer !== 'no') {
    print(`    left waiting; ${hint}`);
    return true;
  }
  let edited: { arguments: Record<string, unknown>; callHash?: string } | undefined;
  if (edit) {
    const hidden =
      p.sensitive && !p.sensitive.revealed
        ? ' (its sensitive fields show as [redacted]; those you leave out keep their values)'
        : '';
    try {
      const changes = argumentsOption(
        'the arguments',
        await rl.question(
          `    fields to change (a JSON object merged onto the model's arguments; now ${p.tool!.arguments}${hidden}): `,
        ),
      );
      edited = mergeOntoWaiting(await run.pendingApprovals(), p.handoffId, changes);
    } catch (err) {
      print(`    ${(err as Error).message}`);
      return false;
    }
  }
  const approver = await askName(rl, print);
  const rejecting = answer.startsWith('n');
  const reason = rejecting ? (await rl.question('    why? (the agent is told; Enter for no reason): ')).trim() : '';
  const decide = rejecting ? baton.reject.bind(baton) : baton.approve.bind(baton);
  const record = await decide(run.workflowId, {
    approvalId: p.handoffId,
    approver,
    ...(reason ? { reason } : {}),
    ...(edited ?? {}),
    ...cliSigner(),
  }).catch((err: Error) => {
    print(`    ${err.name}: ${err.message}`);
    return undefined;
  });
  if (!record) return false;
  const shown = p.sensitive ? redactDecisionRecord(record, { arguments: p.sensitive.arguments }) : record;
  print(
    displayText(
      `    ${shown.outcome} by ${shown.approver}${shown.reason ? `: ${shown.reason}` : ''}${shown.editedArguments ? ` with edited arguments ${shown.editedArguments}` : ''}`,
    ),
  );
  return true;
}

/** Who decides: asked until a name is given (a decision is recorded under it). */
async function askName(rl: readline.Interface, print: Print): Promise<string> {
  for (;;) {
    const name = (await rl.question('    your name: ')).trim();
    if (name) return name;
    print('    a decision is recorded under the name of who made it: type yours');
  }
}

/** Read and drop what is already typed on a terminal's input; resolves to how many bytes were dropped. */
async function discardTypedAhead(stdin: NodeJS.ReadStream): Promise<number> {
  if (!stdin.isTTY) return 0;
  let dropped = 0;
  const drop = (chunk: Buffer) => {
    dropped += chunk.length;
  };
  stdin.setRawMode(true);
  stdin.on('data', drop);
  stdin.resume();
  await new Promise((resolve) => setTimeout(resolve, 50));
  stdin.off('data', drop);
  stdin.pause();
  stdin.setRawMode(false);
  return dropped;
}
