/**
 * Human approval of handoffs and tool calls: policies, what waits, decisions and their records.
 * Plain JSON; workflow-safe (no I/O).
 */
import type { ApprovalQuestion } from './approvalQuestions';
import type { RejectionReason } from './approvalReasons';
import type { ApprovalTiming } from './approvalTiming';
import type { ArgCondition } from './argConditions';

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
  /** `needed` of the approvers `of` must approve (docs/approvals.md, "Quorum and stages"). Not with `approvers` or `stages`. @default none: one decision decides */
  quorum?: ApprovalQuorum;
  /** Stages decided in order, each by its own approvers; a stage's `when` chooses whether it applies. Not with `approvers` or `quorum`. @default none */
  stages?: ApprovalStage[];
}

/** `needed` of the approvers named in `of` must approve. */
export interface ApprovalQuorum {
  /** The slots: people or groups, as decisions name them; each decides once. */
  of: string[];
  /** How many approvals decide it, from 1 to `of.length`. */
  needed: number;
}

/** One stage of an approval: `needed` of its `approvers` approve it, when its conditions hold. */
export interface ApprovalStage {
  /** The slots of the stage. */
  approvers: string[];
  /** @default 1 */
  needed?: number;
  /** Conditions on the call's arguments (a handoff's are `{from, to, message}`), all of which must hold for the stage to apply; always when absent. */
  when?: ArgCondition | ArgCondition[];
}

/** A stage as an approval waits on it: chosen and resolved when it was asked for. */
export interface StageState {
  approvers: string[];
  needed: number;
}

/** One approver's decision on a staged approval, recorded as its own step. */
export interface ApprovalVote {
  /** The stage it was cast in (0-based). */
  stage: number;
  /** The slot it fills: the approver's own, or the one a delegation grant gives (`onBehalfOf`). */
  slot: string;
  /** Who decided. */
  approver: string;
  decision: 'approve' | 'reject';
  /** ISO 8601, workflow time. */
  at: string;
  via: 'signal' | 'update';
  comment?: string;
  reason?: string;
  /** Set when `approver` decided for another's slot: the slot's owner. */
  onBehalfOf?: string;
  /** The grant that gave the slot, as verified (docs/approvals.md, "Delegation"). */
  delegation?: DelegationUse;
  identity?: DecisionIdentity;
  signature?: string;
}

/** A delegation grant a decision used: who granted it (the slot's owner by their key, or an operator), until when, and the grant itself. */
export interface DelegationUse {
  grantedBy: string;
  /** `approver`: the slot's owner signed it with their own key; `operator`: an operator did, with a key of the team's `operatorKeys`. */
  authority: 'approver' | 'operator';
  kid: string;
  /** ISO 8601: the grant's expiry. */
  until: string;
  /** The grant as it arrived (a JWS compact serialization), so the audit can verify it again. */
  grant: string;
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
  /** The stages it is decided in (its policy's `quorum` or `stages`, chosen when it was asked for). `approvers` are then the current stage's slots not yet filled. */
  stages?: StageState[];
  /** The current stage's index into `stages`. */
  stage?: number;
  /** The decisions cast so far, every stage's. */
  votes?: ApprovalVote[];
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
  /** Staged approvals only: the slot decided for, when it is not the approver's own (needs `delegation`). */
  onBehalfOf?: string;
  /** With `onBehalfOf`: the grant (a JWS by the slot's owner or an operator) giving `approver` that slot. */
  delegation?: string;
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
  /** `signed` with a passkey: the origin that asked for its assertion and the authenticator's signature counter. */
  passkey?: { origin: string; signCount: number };
}

/** How an approval ended. */
export interface ApprovalRecord {
  handoffId: string;
  /** `voted`: the decision was one vote of a staged approval, which still waits (only an update's answer says so; never on the record of a decided one). */
  outcome: 'approved' | 'rejected' | 'timed_out' | 'voted';
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
  /** A staged approval's decision: every vote cast, in order. */
  votes?: ApprovalVote[];
  /** The last decision was cast for this slot's owner (see `votes`). */
  onBehalfOf?: string;
}

/** The call a tool approval is about, as the waiting list shows it and a decision may bind to. */
export interface ToolCallUnderApproval {
  name: string;
  /** The arguments as the model wrote them (JSON text). */
  arguments: string;
  toolCallId: string;
  /** A hash of the tool's name and arguments; a decision that names another hash is refused as stale. */
  callHash: string;
}
