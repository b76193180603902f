/**
 * The approvals waiting in the harness's open roots, and what deciding one leaves: the model's record
 * of a decision the workflow took, and the check that a refused decision changed nothing (the
 * approval still waits, in a chain still running).
 */
import type { ApprovalRecord, PendingApproval } from '../../src/workflow';
import { broken, type Harness } from './harness';
import { pick, subjectOf, type ModelState, type RootModel } from './model';

/** An approval waiting somewhere in the open roots, with its root. */
export interface Waiting {
  root: RootModel;
  p: PendingApproval;
}

/** Every approval waiting in the open roots. */
export function waiting(m: ModelState): Waiting[] {
  return m.roots.filter((r) => r.status === 'open').flatMap((root) => root.approvals.map((p) => ({ root, p })));
}

/** The `n`-th waiting approval that `filter` accepts. */
export function waitingFor(
  m: ModelState,
  n: number,
  filter: (w: Waiting) => boolean = () => true,
): Waiting | undefined {
  return pick(waiting(m).filter(filter), n);
}

/** Record a decision the workflow took. */
export function taken(w: Waiting, record: Pick<ApprovalRecord, 'handoffId' | 'outcome'>, signed: boolean): void {
  if (record.outcome === 'timed_out' || record.outcome === 'voted') return;
  w.root.decided.push({
    approvalId: record.handoffId,
    workflowId: w.p.workflowId ?? w.root.id,
    outcome: record.outcome,
    subject: subjectOf(w.p),
    signed,
    ...(w.p.tool ? { toolCallId: w.p.tool.toolCallId } : {}),
  });
}

/** After a refusal or a flood: the approval still waits, in a chain still running. */
export async function stillWaiting(h: Harness, w: Waiting, what: string): Promise<void> {
  await h.system.settle([w.root.id], 20_000);
  const run = h.baton.getRun(w.root.id);
  const status = (await run.handle.describe()).status.name;
  const still =
    status === 'RUNNING' ? (await run.pendingApprovals()).some((p) => p.handoffId === w.p.handoffId) : false;
  if (!still)
    broken(
      h,
      'refusals-change-nothing',
      `${what} to ${w.p.handoffId} in ${w.root.id}: the chain is ${status}${status === 'RUNNING' ? ' and the approval no longer waits' : ''}`,
    );
}
