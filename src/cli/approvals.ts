import readline from 'node:readline/promises';
import { Baton, type BatonRun, type PendingHandoff } from '../client/baton';
import type { PendingApproval } from '../common/types';
import { parse, UsageError } from './args';
import { connect } from './connect';
import type { Print } from './commands';

/** `baton pending`: every handoff waiting for approval, across chains. */
export async function pending(argv: string[], print: Print): Promise<number> {
  const { values } = parse(argv, { json: { type: 'boolean', default: false }, 'task-queue': { type: 'string' } });
  const baton = await batonClient(values['task-queue']);
  const waiting = await baton.pending();
  if (values.json) print(JSON.stringify(waiting, null, 2));
  else if (waiting.length === 0) print('no handoff is waiting for approval');
  else for (const p of waiting) print(formatPending(p));
  return 0;
}

/** `baton approve|reject <workflowId> [--handoff <id>] --as <approver>`. */
export function decide(decision: 'approve' | 'reject') {
  return async (argv: string[], print: Print): Promise<number> => {
    const { values, positionals } = parse(argv, {
      handoff: { type: 'string' },
      as: { type: 'string' },
      comment: { type: 'string' },
      reason: { type: 'string' },
    });
    const [workflowId, ...rest] = positionals;
    if (!workflowId || rest.length > 0) throw new UsageError(`expected exactly <workflowId>`);
    if (!values.as) throw new UsageError('--as <approver> is required: who decides');
    const baton = await batonClient();
    const options = { approver: values.as, comment: values.comment, reason: values.reason };
    const record = decision === 'approve' ? await baton.approve(workflowId, values.handoff, options) : await baton.reject(workflowId, values.handoff, options);
    print(`handoff ${record.handoffId} ${record.outcome} by ${record.approver}`);
    return 0;
  };
}

async function batonClient(taskQueue?: string): Promise<Baton> {
  const { client } = await connect();
  return new Baton({ client, ...(taskQueue ? { taskQueue } : {}) });
}

export function formatPending(p: PendingHandoff): string {
  const age = Math.round(p.ageMs / 1000);
  return `${p.workflowId}  ${p.handoffId}  ${p.from} → ${p.to}  waiting ${age}s${p.approvers ? `  approvers: ${p.approvers.join(', ')}` : ''}\n    ${JSON.stringify(p.message)}`;
}

/**
 * How `baton run` and `baton demo` treat a handoff waiting for approval: in a terminal, ask;
 * otherwise print how to decide it (or decide as `autoApprover` when given).
 */
export function approvalPrompter(baton: Baton, print: Print, options: { autoApprover?: string } = {}) {
  return async (run: BatonRun, p: PendingApproval): Promise<void> => {
    print(`  ⏸ ${p.from} → ${p.to} waits for approval (handoff ${p.handoffId}${p.approvers ? `, approvers: ${p.approvers.join(', ')}` : ''})`);
    if (process.stdin.isTTY && process.stdout.isTTY) {
      const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
      try {
        const answer = (await rl.question(`    approve it? [y]es / [n]o / anything else leaves it waiting: `)).trim().toLowerCase();
        if (answer !== 'y' && answer !== 'yes' && answer !== 'n' && answer !== 'no') return;
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
    } else if (options.autoApprover) {
      const record = await baton.approve(run.workflowId, p.handoffId, { approver: options.autoApprover, comment: 'approved by the demo (no terminal to ask)' });
      print(`    ${record.outcome} by ${record.approver} (no terminal to ask; run it in a terminal to decide yourself)`);
    } else {
      print(`    decide with: npx baton approve ${run.workflowId} --handoff ${p.handoffId} --as <you>   (or reject)`);
    }
  };
}
