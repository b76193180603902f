/**
 * Human approval of handoffs and tool calls: policies, what waits, decisions and their records.
 * Plain JSON; workflow-safe (no I/O).
 */
import type { ToolCallUnderApproval } from './controls';

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
  /**
   * Set when a tool call waits rather than a handoff: the exact call a decision applies to
   * (`from` is the agent, `to` is `tool:<name>`).
   */
  tool?: ToolCallUnderApproval;
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
  /**
   * Tool approvals only, with `approve`: the arguments to run the call with instead of the
   * model's, checked against the tool's parameters schema.
   */
  arguments?: Record<string, unknown>;
  /** Tool approvals only: the `callHash` of the call the approver saw; a decision for another call is refused as stale. */
  callHash?: string;
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
  /** The tool, when a tool call was decided. */
  tool?: string;
  /** The arguments the approver ran the tool call with instead of the model's (JSON text). */
  editedArguments?: string;
}
