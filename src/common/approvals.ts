/**
 * Human approval of handoffs: policies, waiting handoffs, decisions and their records.
 * Plain JSON; workflow-safe (no I/O).
 */

/** What happens when nobody decides a handoff in time. */
export const ApprovalTimeoutOutcome = {
  /** The source agent is told the handoff was not approved and goes on. */
  REJECT: 'reject',
  /** The handoff goes ahead. */
  APPROVE: 'approve',
  /** The run fails with `ApprovalTimeoutError`. */
  FAIL: 'fail',
} as const;
export type ApprovalTimeoutOutcome = (typeof ApprovalTimeoutOutcome)[keyof typeof ApprovalTimeoutOutcome];

/** Whether a handoff needs a person's approval, and whose. Evaluated in the workflow, never by the model. */
export interface ApprovalPolicy {
  /** @default true */
  required?: boolean;
  /** Who may decide; anyone when absent. */
  approvers?: string[];
  /** How long to wait, e.g. `"30 minutes"`; forever when absent. */
  timeout?: string | number;
  /** @default "reject" */
  onTimeout?: ApprovalTimeoutOutcome;
}

/** An approval policy for handoffs into `to`, or only for the edge `from` → `to`. */
export interface ApprovalRule extends ApprovalPolicy {
  from?: string;
  to: string;
}

/** A handoff waiting for a decision. */
export interface PendingApproval {
  handoffId: string;
  from: string;
  to: string;
  message: string;
  /** ISO 8601, workflow time. */
  requestedAt: string;
  /** ISO 8601; absent when the policy has no timeout. */
  expiresAt?: string;
  approvers?: string[];
  /** The policy's timeout as given. */
  timeout?: string | number;
  onTimeout: ApprovalTimeoutOutcome;
  /** The chain the handoff waits in, when it is a specialist of this one (delegation). */
  workflowId?: string;
}

/** A decision sent by a person (or a program acting for one). */
export interface HandoffDecision {
  handoffId: string;
  approver: string;
  decision: 'approve' | 'reject';
  /** With an approval. */
  comment?: string;
  /** With a rejection. */
  reason?: string;
}

/** How an approval ended. */
export interface ApprovalRecord {
  handoffId: string;
  outcome: 'approved' | 'rejected' | 'timed_out';
  /** Who decided; absent on a timeout. */
  approver?: string;
  comment?: string;
  reason?: string;
  requestedAt: string;
  decidedAt: string;
  /** How the decision arrived. */
  via: 'signal' | 'update' | 'timeout';
  /** On a timeout: what the policy made of it, and the timeout it had. */
  onTimeout?: ApprovalTimeoutOutcome;
  timeout?: string | number;
}
