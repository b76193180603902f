import readline from 'node:readline/promises';
import { Baton, type BatonRun } from '../client/baton';
import { chainRedaction } from '../client/sensitive';
import { redactDecisionRecord, type SensitiveArguments } from '../common/sensitive';
import type { PendingApproval } from '../common/types';
import { parse, UsageError } from './args';
import { connect } from './connect';
import type { Command } from './context';
import { decideHint, formatDecision, formatPending, formatWaiting, type Print } from './print';

/** `baton pending`: every handoff and tool call waiting for approval, across chains. */
export const pendingCommand: Command = {
  synopsis: 'baton pending [--as <approver>] [--json]',
  summary: 'handoffs and tool calls waiting for approval, across chains',
  help: `Options:
  --as <approver> show the real values of sensitive tool arguments in the calls this approver may
                  decide (the policy names them, or names no approvers); "[redacted]" otherwise
  --json          print the list as JSON

Lists running chains whose handoffs or tool calls wait for a decision, oldest first, with how long
each has waited; a tool call shows with its arguments (agent → tool name {arguments}), those its
tool declares sensitive as "[redacted]".`,
  async run(argv, { out }) {
    const { values, positionals } = parse(argv, { json: { type: 'boolean', default: false }, as: { type: 'string' } });
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    if (values.as !== undefined && values.as.trim() === '') throw new UsageError('--as must name an approver');
    const baton = await batonClient();
    const waiting = await baton.pending(values.as ? { reveal: values.as } : {});
    if (values.json) out(JSON.stringify(waiting, null, 2));
    else if (waiting.length === 0) out('no handoff or tool call is waiting for approval');
    else for (const p of waiting) out(formatPending(p));
    return 0;
  },
};

/** `baton approve|reject <workflowId> [--handoff <id>] --as <approver>`, and `--args` to approve a tool call with edited arguments. */
export function decideCommand(decision: 'approve' | 'reject'): Command {
  const approve = decision === 'approve';
  const note = approve ? '--comment <text>' : '--reason <text>';
  return {
    synopsis: `baton ${decision} <workflowId> [--handoff <id>] --as <approver> [${note}]${approve ? ` [--args '<json object>']` : ''}`,
    summary: `${decision} a handoff or tool call waiting for approval`,
    help: `Options:
  --as <approver>     who decides (required; checked against the policy's approvers)
  --handoff <id>      which waiting handoff or tool call (needed only when several wait in the chain)
  ${note.padEnd(19)} ${approve ? 'a note kept with the approval' : 'why: the agent is told, and goes on'}${
    approve
      ? `
  --args <json>       a tool call only: run it with these arguments instead of the model's, a JSON
                      object checked against the tool's parameters, e.g. --args '{"amount":200}'`
      : ''
  }

Prints the recorded decision; a decision that cannot apply (nothing waits, not an allowed approver,
arguments the tool's parameters refuse, a call that changed since) is refused with
ApprovalRefusedError and exit code 1.`,
    async run(argv, { out }) {
      const { values, positionals } = parse(argv, {
        handoff: { type: 'string' },
        as: { type: 'string' },
        comment: { type: 'string' },
        reason: { type: 'string' },
        ...(approve ? { args: { type: 'string' as const } } : {}),
      });
      const [workflowId, ...rest] = positionals;
      if (!workflowId || rest.length > 0) throw new UsageError('expected exactly <workflowId>');
      if (!values.as) throw new UsageError('--as <approver> is required: who decides');
      const edited = typeof values.args === 'string' ? argumentsOption('--args', values.args) : undefined;
      const baton = await batonClient();
      const options = { approver: values.as, comment: values.comment, reason: values.reason, ...(edited ? { arguments: edited } : {}) };
      const record = approve ? await baton.approve(workflowId, values.handoff, options) : await baton.reject(workflowId, values.handoff, options);
      // Edited arguments the tool declares sensitive are not echoed to the terminal.
      const team = record.editedArguments !== undefined ? await chainRedaction(baton.client, workflowId) : undefined;
      out(formatDecision(redactDecisionRecord(record, team?.of(undefined, record.tool))));
      return 0;
    },
  };
}

/** Edited tool-call arguments given as JSON text (`--args`, or typed at a prompt): a JSON object, or a {@link UsageError} naming `flag`. */
export function argumentsOption(flag: string, raw: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    throw new UsageError(`${flag} must be a JSON object of the tool's arguments, e.g. {"orderId":"A1"}; got text that is not JSON (${(err as Error).message})`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const got = Array.isArray(value) ? 'a list' : value === null ? 'null' : `a ${typeof value}`;
    throw new UsageError(`${flag} must be a JSON object of the tool's arguments, e.g. {"orderId":"A1"}; got ${got}`);
  }
  return value as Record<string, unknown>;
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
 * How `baton run` and `baton demo` treat a handoff or tool call waiting for approval: in a
 * terminal, ask (a tool call's arguments may be edited there); otherwise print how to decide it
 * (or decide as `autoApprover` when given).
 */
export function approvalPrompter(baton: Baton, print: Print, options: PrompterOptions = {}) {
  const terminal = options.terminal ?? process.stdout;
  return async (run: BatonRun, p: PendingApproval & { sensitive?: SensitiveArguments }): Promise<void> => {
    print(formatWaiting(p));
    if (process.stdin.isTTY && terminal.isTTY) {
      await ask(baton, run, p, print, terminal);
    } else if (options.autoApprover) {
      const record = await baton.approve(run.workflowId, p.handoffId, { approver: options.autoApprover, comment: 'approved by the demo (no terminal to ask)' });
      print(`    ${record.outcome} by ${record.approver} (no terminal to ask; run it in a terminal to decide yourself)`);
    } else {
      print(`    ${decideHint(run.workflowId, p.handoffId, p.tool !== undefined)}`);
    }
  };
}

async function ask(baton: Baton, run: BatonRun, p: PendingApproval & { sensitive?: SensitiveArguments }, print: Print, terminal: NodeJS.WriteStream): Promise<void> {
  const rl = readline.createInterface({ input: process.stdin, output: terminal });
  // In a prompt the terminal's Ctrl-C reaches readline, not the process: pass it on so it stops the command.
  rl.on('SIGINT', () => process.kill(process.pid, 'SIGINT'));
  const hint = decideHint(run.workflowId, p.handoffId, p.tool !== undefined);
  try {
    const choices = p.tool ? '[y]es / [n]o / [e]dit the arguments' : '[y]es / [n]o';
    const answer = (await rl.question(`    approve it? ${choices} / anything else leaves it waiting: `)).trim().toLowerCase();
    const edit = p.tool !== undefined && (answer === 'e' || answer === 'edit');
    if (!edit && answer !== 'y' && answer !== 'yes' && answer !== 'n' && answer !== 'no') {
      print(`    left waiting; ${hint}`);
      return;
    }
    let edited: Record<string, unknown> | undefined;
    if (edit) {
      const hidden = p.sensitive && !p.sensitive.revealed ? ` (its sensitive fields show as [redacted]: give their values too)` : '';
      try {
        edited = argumentsOption('the arguments', await rl.question(`    arguments (a JSON object; now ${p.tool!.arguments}${hidden}): `));
      } catch (err) {
        print(`    ${(err as Error).message}; left waiting; ${hint}`);
        return;
      }
    }
    const approver = (await rl.question(`    your name: `)).trim() || process.env.USER || 'cli';
    const decide = answer.startsWith('n') ? baton.reject.bind(baton) : baton.approve.bind(baton);
    const record = await decide(run.workflowId, p.handoffId, { approver, ...(edited ? { arguments: edited } : {}) }).catch((err: Error) => {
      print(`    ${err.name}: ${err.message}`);
      return undefined;
    });
    const shown = record && p.sensitive ? redactDecisionRecord(record, { arguments: p.sensitive.arguments }) : record;
    if (shown) print(`    ${shown.outcome} by ${shown.approver}${shown.editedArguments ? ` with edited arguments ${shown.editedArguments}` : ''}`);
  } finally {
    rl.close();
  }
}
