import readline from 'node:readline/promises';
import { Baton, type BatonRun } from '../client/baton';
import type { PendingApproval } from '../common/types';
import { parse, UsageError } from './args';
import { connect } from './connect';
import type { Command } from './context';
import { decideHint, formatPending, type Print } from './print';

/** `baton pending`: every handoff waiting for approval, across chains. */
export const pendingCommand: Command = {
  synopsis: 'baton pending [--json]',
  summary: 'handoffs waiting for approval, across chains',
  help: `Options:
  --json          print the list as JSON

Lists running chains whose handoffs wait for a decision, oldest first, with how long each has waited.`,
  async run(argv, { out }) {
    const { values, positionals } = parse(argv, { json: { type: 'boolean', default: false } });
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    const baton = await batonClient();
    const waiting = await baton.pending();
    if (values.json) out(JSON.stringify(waiting, null, 2));
    else if (waiting.length === 0) out('no handoff is waiting for approval');
    else for (const p of waiting) out(formatPending(p));
    return 0;
  },
};

/** `baton approve|reject <workflowId> [--handoff <id>] --as <approver>`. */
export function decideCommand(decision: 'approve' | 'reject'): Command {
  const note = decision === 'approve' ? '--comment <text>' : '--reason <text>';
  return {
    synopsis: `baton ${decision} <workflowId> [--handoff <id>] --as <approver> [${note}]`,
    summary: `${decision} a handoff waiting for approval`,
    help: `Options:
  --as <approver>     who decides (required; checked against the policy's approvers)
  --handoff <id>      which waiting handoff (needed only when several wait in the chain)
  ${note.padEnd(19)} ${decision === 'approve' ? 'a note kept with the approval' : 'why: the source agent is told, and goes on'}

Prints the recorded decision; a decision that cannot apply (nothing waits, not an allowed approver)
is refused with ApprovalRefusedError and exit code 1.`,
    async run(argv, { out }) {
      const { values, positionals } = parse(argv, {
        handoff: { type: 'string' },
        as: { type: 'string' },
        comment: { type: 'string' },
        reason: { type: 'string' },
      });
      const [workflowId, ...rest] = positionals;
      if (!workflowId || rest.length > 0) throw new UsageError('expected exactly <workflowId>');
      if (!values.as) throw new UsageError('--as <approver> is required: who decides');
      const baton = await batonClient();
      const options = { approver: values.as, comment: values.comment, reason: values.reason };
      const record = decision === 'approve' ? await baton.approve(workflowId, values.handoff, options) : await baton.reject(workflowId, values.handoff, options);
      out(`handoff ${record.handoffId} ${record.outcome} by ${record.approver}`);
      return 0;
    },
  };
}

async function batonClient(): Promise<Baton> {
  const { client } = await connect();
  return new Baton({ client });
}

/** Options of {@link approvalPrompter}. */
export interface PrompterOptions {
  /** Without a terminal, approve as this approver instead of printing how to decide. */
  autoApprover?: string;
  /** Where the questions go when asking in a terminal. @default process.stdout */
  terminal?: NodeJS.WriteStream;
}

/**
 * How `baton run` and `baton demo` treat a handoff waiting for approval: in a terminal, ask;
 * otherwise print how to decide it (or decide as `autoApprover` when given).
 */
export function approvalPrompter(baton: Baton, print: Print, options: PrompterOptions = {}) {
  const terminal = options.terminal ?? process.stdout;
  return async (run: BatonRun, p: PendingApproval): Promise<void> => {
    print(`  ⏸ ${p.from} → ${p.to} waits for approval (handoff ${p.handoffId}${p.approvers ? `, approvers: ${p.approvers.join(', ')}` : ''})`);
    if (process.stdin.isTTY && terminal.isTTY) {
      await ask(baton, run, p, print, terminal);
    } else if (options.autoApprover) {
      const record = await baton.approve(run.workflowId, p.handoffId, { approver: options.autoApprover, comment: 'approved by the demo (no terminal to ask)' });
      print(`    ${record.outcome} by ${record.approver} (no terminal to ask; run it in a terminal to decide yourself)`);
    } else {
      print(`    ${decideHint(run.workflowId, p.handoffId)}`);
    }
  };
}

async function ask(baton: Baton, run: BatonRun, p: PendingApproval, print: Print, terminal: NodeJS.WriteStream): Promise<void> {
  const rl = readline.createInterface({ input: process.stdin, output: terminal });
  // In a prompt the terminal's Ctrl-C reaches readline, not the process: pass it on so it stops the command.
  rl.on('SIGINT', () => process.kill(process.pid, 'SIGINT'));
  try {
    const answer = (await rl.question(`    approve it? [y]es / [n]o / anything else leaves it waiting: `)).trim().toLowerCase();
    if (answer !== 'y' && answer !== 'yes' && answer !== 'n' && answer !== 'no') {
      print(`    left waiting; ${decideHint(run.workflowId, p.handoffId)}`);
      return;
    }
    const approver = (await rl.question(`    your name: `)).trim() || process.env.USER || 'cli';
    const decide = answer.startsWith('y') ? baton.approve.bind(baton) : baton.reject.bind(baton);
    const record = await decide(run.workflowId, p.handoffId, { approver }).catch((err: Error) => {
      print(`    ${err.name}: ${err.message}`);
      return undefined;
    });
    if (record) print(`    ${record.outcome} by ${record.approver}`);
  } finally {
    rl.close();
  }
}
