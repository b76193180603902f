/**
 * Human approval of handoffs and tool calls: policies, what waits, decisions and their records.
 * Plain JSON; workflow-safe (no I/O).
 */
import type { ApprovalQuestion } from './approvalQuestions';
import type { RejectionReason } from './approvalReasons';
import type { ApprovalTiming } from './approvalTiming';
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
export interface ApprovalPolicy extends ApprovalTiming {
  /** @default true */
  required?: boolean;
  /** Who may decide; anyone when absent. */
  approvers?: string[];
  /**
   * Decisions must carry a valid signature by a key the team or the run trusts for their approver
   * (docs/signatures.md); an unsigned or badly signed one is refused and recorded. @default false
   */
  requireSignature?: boolean;
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
  /** Set when a decision needs a valid signature (`requireSignature` of the policy or the run). */
  requireSignature?: boolean;
  /** ISO 8601: when the approval is due (its policy's `dueIn`). */
  dueAt?: string;
  /** The timing its policy runs on (SLA, reminders, escalation), resolved when it was asked for. */
  policy?: ApprovalTiming;
  /** How far its policy got: reminders sent, escalation steps taken, whether it was marked overdue. */
  progress?: PolicyProgress;
  /** The team's typed rejection reasons: a rejection's `reason` must be one of their codes. */
  rejectionReasons?: RejectionReason[];
  /** Questions approvers asked about it (request-info), with their answers once given; the last may wait for its answer. */
  questions?: ApprovalQuestion[];
}

/** How far an approval's policy got; carried across continue-as-new with the approval. */
export interface PolicyProgress {
  reminders: number;
  steps: number;
  overdue: boolean;
}

/** A decision sent by a person (or a program acting for one). */
export interface HandoffDecision {
  handoffId: string;
  approver: string;
  decision: 'approve' | 'reject';
  /** With an approval. */
  comment?: string;
  /** With a rejection: free text, or — when the team defines `rejectionReasons` — one of their codes. */
  reason?: string;
  /**
   * Tool approvals only, with `approve`: the arguments to run the call with instead of the
   * model's, checked against the tool's parameters schema.
   */
  arguments?: Record<string, unknown>;
  /** Tool approvals only: the `callHash` of the call the approver saw; a decision for another call is refused as stale. */
  callHash?: string;
  /**
   * A JWS compact serialization signing what is decided with the approver's Ed25519 key
   * (docs/signatures.md); the workflow verifies it against the keys the team or the run trusts.
   */
  signature?: string;
}

/**
 * How a decision's approver was established: `signed` (a signature by a key the chain trusts for
 * the approver, `kid`), `token` (an HTTP service checked a token, `issuer` and `subject`, and signed
 * the decision with its own key `kid`), or `claimed` (the approver is a name the sender gave).
 */
export interface DecisionIdentity {
  method: 'signed' | 'token' | 'claimed';
  /** The key that signed it. */
  kid?: string;
  /** Where the chain's trust in that key comes from: its team's snapshot, or its run's options. */
  keySource?: 'team' | 'run';
  /** `token`: the issuer of the token the service checked. */
  issuer?: string;
  /** `token`: the token's subject. */
  subject?: string;
}

/** How an approval ended. */
export interface ApprovalRecord {
  handoffId: string;
  outcome: 'approved' | 'rejected' | 'timed_out';
  /** Who decided; absent on a timeout. */
  approver?: string;
  comment?: string;
  /** A rejection's reason: its code, when the team defines typed reasons. */
  reason?: string;
  /** The label of a typed rejection reason. */
  reasonLabel?: string;
  /** The questions asked about the approval before it was decided, with their answers. */
  questions?: ApprovalQuestion[];
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
  /** SHA-256 (hex) of the edited arguments' canonical JSON, which a signature names (chains with signed decisions). */
  argumentsDigest?: string;
  /** How the approver was established (chains with signed decisions). */
  identity?: DecisionIdentity;
  /** The decision's signature, as it arrived (a JWS compact serialization), when it carried one. */
  signature?: string;
  /** Set when the policy decided (`via: 'timeout'`): the index of the escalation step that did. */
  escalationStep?: number;
}
