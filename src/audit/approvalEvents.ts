/**
 * The approval steps of the audit chain (schema `baton.audit/v1`): an approval asked for and
 * decided, its policy's reminders and escalations, the votes and stages of a staged approval, the
 * questions asked about it, and the decisions, questions and reports refused. The chain's `AuditEvent`
 * lists them among its other events.
 */
import type { ApprovalRecord, DecisionIdentity } from '../common/approvals';
import type { ToolCallUnderApproval } from '../common/controls';

/** One of the decisions a `decision_refused` record counts. */
export interface RefusedSample {
  handoffId?: string;
  approver?: string;
  decision?: string;
  reason: string;
  via: string;
  at?: string;
}

/** An approval step of the chain, as the chain's `AuditEvent` records it (without its place in history). */
export type ApprovalAuditEvent =
  /** A handoff, or with `tool` a tool call (`to` is then `tool:<name>`), put in front of people. */
  | {
      kind: 'approval_requested';
      handoffId: string;
      from: string;
      to: string;
      message: string;
      expiresAt?: string;
      approvers?: string[];
      tool?: ToolCallUnderApproval;
    }
  | ({ kind: 'approval_decided' } & ApprovalRecord)
  /** Steps of an approval's policy (docs/approvals.md): its SLA passed, a reminder, an escalation step (`reassign` or `notify`). */
  | { kind: 'approval_overdue'; handoffId: string; dueAt: string }
  | { kind: 'approval_reminded'; handoffId: string; recipients: string[]; reminder: number; dueAt?: string }
  /** Request-info (docs/approvals.md): an approver asked a question about a waiting approval; the requester answered it; one was refused. */
  | { kind: 'approval_asked'; handoffId: string; question: string; askedBy: string }
  | { kind: 'approval_answered'; handoffId: string; question: string; answer: string; answeredBy: string }
  | {
      kind: 'question_refused';
      action: 'ask' | 'answer';
      handoffId?: string;
      by?: string;
      reason: string;
      via: string;
      count?: number;
    }
  | {
      kind: 'approval_escalated';
      handoffId: string;
      step: number;
      after: string | number;
      action: 'reassign' | 'notify';
      to?: string[];
      from?: string[];
      recipients?: string[];
    }
  /** One decision on a staged approval (`quorum`, `stages`): its slot, the stage's tally after it (docs/approvals.md). */
  | {
      kind: 'approval_vote';
      handoffId: string;
      stage: number;
      slot: string;
      approver: string;
      decision: 'approve' | 'reject';
      via: string;
      onBehalfOf?: string;
      identity?: DecisionIdentity;
      comment?: string;
      reason?: string;
      needed: number;
      approvals: number;
      rejections: number;
    }
  /** A stage of a staged approval decided; `next` and `approvers` name the stage it waits on now. */
  | {
      kind: 'approval_stage';
      handoffId: string;
      stage: number;
      of: number;
      outcome: 'approved' | 'rejected';
      next?: number;
      approvers?: string[];
    }
  /** A decision filled another's slot by a verified grant: `delegate` for `slot`, granted by `grantedBy` (the slot's owner or an operator). */
  | {
      kind: 'delegated';
      handoffId: string;
      stage: number;
      slot: string;
      delegate: string;
      grantedBy: string;
      authority: 'approver' | 'operator';
      kid: string;
      until: string;
    }
  /**
   * A decision refused; with `count`, the first of that many refused in one step of the chain (a
   * flood is recorded once), `samples` the last few of the others.
   */
  | {
      kind: 'decision_refused';
      handoffId?: string;
      approver?: string;
      decision?: string;
      reason: string;
      via: string;
      count?: number;
      samples?: RefusedSample[];
    }
  /** A report of approvals waiting in a specialist, refused: not from a specialist this chain started, or without its token. */
  | { kind: 'report_refused'; workflowId?: string; reason: string };
