/**
 * The port an approval policy's clock implements (`workflows/approvals/`): when the policy of a
 * waiting approval acts next, and what it does then. The desk (desk.ts) waits for whichever comes
 * first — a decision, the approval's timeout, or that moment — on one durable timer at a time.
 */
import type { ApprovalRecord, PendingApproval, PolicyProgress } from '../../src/common/approvals';
import type { ChainEvent } from './state';

/** What a policy's clock may do to the approval it acts on, through the desk. */
export interface PolicyDesk {
  /** The approval's policy got this far (and, after a reassignment, is decided by `approvers`). */
  progress(handoffId: string, progress: PolicyProgress, approvers?: string[]): void;
  /** Put a step on the record (the audit shows it). */
  record(event: { type: string } & Record<string, unknown>): void;
}

/** The clock of approval policies. */
export interface ApprovalClock {
  /** When (workflow time, ms) the policy of `waiting` acts next; `undefined` when it never does again. */
  next(waiting: PendingApproval): number | undefined;
  /** Take every step due at `now`; the record of the policy's decision when a step decided. */
  act(waiting: PendingApproval, now: number, desk: PolicyDesk): ApprovalRecord | undefined;
}

/** The {@link PolicyDesk} of a desk that applies chain events with `apply` and puts events on the record with `publish`. */
export function policyDesk(
  apply: (e: ChainEvent) => void,
  publish: (e: { type: string } & Record<string, unknown>) => void,
): PolicyDesk {
  return {
    progress: (handoffId, progress, approvers) =>
      apply({ type: 'approval_progressed', handoffId, progress, ...(approvers ? { approvers } : {}) }),
    record: publish,
  };
}
