import type { PendingHandoff, RunResult } from '../client/baton';
import { chainPath } from '../common/errors';
import type { HandoffRecord } from '../common/types';

/** Writes one line (or several, joined by newlines). */
export type Print = (line: string) => void;

/** The answer of a chain that started at `start`, its path and its usage. */
export function formatResult(start: string, r: RunResult): string {
  return [
    `answer from ${r.finalAgent}:`,
    `  ${r.output.split('\n').join('\n  ')}`,
    `chain: ${r.handoffChain.length > 0 ? chainPath(r.handoffChain) : start} (${r.handoffChain.length} handoff${r.handoffChain.length === 1 ? '' : 's'})`,
    `usage: ${r.usage.modelCalls} model calls, ${r.usage.toolCalls} tool calls, ${r.usage.totalTokens} tokens`,
  ].join('\n');
}

/** One handoff as it happens: `↪ triage → refunds [approved by alice]: message`. */
export function formatHandoff(h: HandoffRecord): string {
  const message = h.message.length > 100 ? `${h.message.slice(0, 97)}...` : h.message;
  const approval = h.approval ? ` [${h.approval.outcome === 'approved' ? `approved by ${h.approval.approver}` : 'approved on timeout'}]` : '';
  return `  ↪ ${h.from} → ${h.to}${approval}: ${message}`;
}

/** A handoff waiting for approval, for `baton pending`. */
export function formatPending(p: PendingHandoff): string {
  const age = Math.round(p.ageMs / 1000);
  return `${p.workflowId}  ${p.handoffId}  ${p.from} → ${p.to}  waiting ${age}s${p.approvers ? `  approvers: ${p.approvers.join(', ')}` : ''}\n    ${JSON.stringify(p.message)}`;
}

/** How to decide a waiting handoff from another shell. */
export function decideHint(workflowId: string, handoffId: string): string {
  return `decide with: npx baton approve ${workflowId} --handoff ${handoffId} --as <you>   (or reject)`;
}
