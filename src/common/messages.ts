/**
 * Every name other programs depend on: task queue, workflow types, queries and search attributes.
 * Workflows, the client and the tests import these definitions; no call site spells a name.
 *
 * Workflow-safe: no I/O.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ApprovalQuestion, AnswerQuestionInput, AskQuestionInput } from './approvalQuestions';
import type { ApprovalRecord, HandoffDecision, PendingApproval } from './approvals';
import type { HandoffRecord, RunOverrides, RunStatus } from './run';
import type { SteerInput, SteerReceipt } from './live';
import type { ExperimentState, StopExperiment } from './experiment';
import type { ChainPolicy, PolicyUpdateInput, PolicyUpdateResult } from './authority/policyUpdate';

/** The task queue baton's workers poll unless told otherwise. */
export const DEFAULT_TASK_QUEUE = 'baton';

/** Workflow type names. */
export const WorkflowType = {
  /** One chain of handoffs from an input to an answer. */
  HANDOFF_RUN: 'handoffRun',
  /** A multi-turn conversation: one chain per user message (`sendMessage`), continued as new as it grows. */
  CONVERSATION: 'conversation',
  /** An experiment: its variants, until it is stopped (update `stopExperiment`); its state in the memo `batonExperiment`. */
  EXPERIMENT: 'experiment',
} as const;
export type WorkflowType = (typeof WorkflowType)[keyof typeof WorkflowType];

/** Query: the handoffs recorded so far. */
export const chainQuery = defineQuery<HandoffRecord[]>('chain');

/** Query: where the run is. */
export const statusQuery = defineQuery<RunStatus>('status');

/** Query: the handoffs of this run waiting for a decision. */
export const pendingApprovalsQuery = defineQuery<PendingApproval[]>('pendingApprovals');

/** Input of the `approveHandoff` signal. */
export interface ApproveHandoffInput {
  handoffId: string;
  approver: string;
  comment?: string;
}

/** Input of the `rejectHandoff` signal. */
export interface RejectHandoffInput {
  handoffId: string;
  approver: string;
  reason?: string;
}

/**
 * Signal: approve a waiting handoff. A signal that cannot apply (unknown id, already decided,
 * approver not allowed) is ignored without failing the run, and the refusal is recorded for the audit.
 */
export const approveHandoffSignal = defineSignal<[ApproveHandoffInput]>('approveHandoff');

/** Signal: reject a waiting handoff; the source agent is told who rejected it and why. */
export const rejectHandoffSignal = defineSignal<[RejectHandoffInput]>('rejectHandoff');
/** Update: decide a waiting handoff and get the outcome, or a refusal naming the problem. */
export const decideHandoffUpdate = defineUpdate<ApprovalRecord, [HandoffDecision]>('decideHandoff');

/**
 * Update: an approver asks about a waiting approval instead of deciding (request-info); it waits on, now for
 * the answer too. Refused when nothing waits under that id, the asker is not an approver, a question is
 * already open, or the question is empty or too long (docs/approvals.md).
 */
export const askHandoffQuestionUpdate = defineUpdate<ApprovalQuestion, [AskQuestionInput]>('askHandoffQuestion');
/** Update: answer the open question about a waiting approval; the approval waits on with the answer attached. */
export const answerHandoffQuestionUpdate = defineUpdate<ApprovalQuestion, [AnswerQuestionInput]>(
  'answerHandoffQuestion',
);

/**
 * Update: apply a team's approval policies (handoffs, tool calls, signature requirements) to a running
 * chain or conversation, from its next step on; calls already waiting keep theirs. Refused
 * (`PolicyLoosenedError`, `InvalidRunInputError`) when it would loosen anything (docs/authority.md).
 */
export const tightenPolicyUpdate = defineUpdate<PolicyUpdateResult, [PolicyUpdateInput]>('tightenPolicy');
/** Query: the approval policies a chain or conversation runs under now (its team's and its run's own rules). */
export const policyQuery = defineQuery<ChainPolicy>('policy');

/**
 * Signal: change options or models of a running chain from its next step on (`baton.override`).
 * Invalid overrides are ignored and the refusal is recorded for the audit.
 */
export const overrideRunSignal = defineSignal<[RunOverrides]>('overrideRun');

/**
 * Signal: a specialist chain tells the chain that delegated to it which approvals wait in it and
 * in its own specialists, so they surface at the top (`pendingApprovals`, `baton.pending()`).
 */
export const childApprovalsSignal = defineSignal<[ChildApprovals]>('childApprovals');

/** What {@link childApprovalsSignal} carries. */
export interface ChildApprovals {
  /** The specialist chain's workflow id. */
  workflowId: string;
  /**
   * The token the calling chain gave the specialist when it started it (`parent.token` of its
   * input): a chain takes reports only from specialists it started, each with its own token.
   */
  token?: string;
  /** Its waiting approvals and those of its own specialists, each with the chain it waits in. */
  pending: PendingApproval[];
}

/**
 * What a chain read of what waits in one of its specialists (`readSpecialistApprovals`): its
 * `pendingApprovals`, or that Temporal does not record the reader as its parent, or that it ended.
 */
export type SpecialistApprovalsRead =
  { kind: 'pending'; pending: unknown } | { kind: 'not_a_child'; parent?: string } | { kind: 'ended' };

/**
 * Signal: a decision sent to a chain for an approval that waits in one of its specialists,
 * forwarded by that chain to the specialist the approval waits in. A specialist answers a forward
 * that asks for it ({@link ForwardedDecision.replyTo}, one of its callers) with
 * {@link forwardedOutcomeSignal}.
 */
export const forwardDecisionSignal = defineSignal<[ForwardedDecision]>('forwardDecision');

/** What {@link forwardDecisionSignal} carries. */
export interface ForwardedDecision {
  decision: HandoffDecision;
  /** How the decision reached the chain that forwards it. */
  via: 'signal' | 'update';
  /** The chain waiting for the outcome (one of the specialist's callers), when it waits for one. */
  replyTo?: string;
  /** The forward's id, which the outcome names. */
  forwardId?: string;
}

/** Signal: how a forwarded decision ended in the specialist, for the chain that forwarded it. */
export const forwardedOutcomeSignal = defineSignal<[ForwardedOutcome]>('forwardedOutcome');

/** What {@link forwardedOutcomeSignal} carries: the decision's record, or why it was refused. */
export interface ForwardedOutcome {
  forwardId: string;
  record?: ApprovalRecord;
  refused?: string;
  /** With `refused`, when the specialist refused the decision's signature: the `SignatureProblem`. */
  problem?: string;
}

/** Memo key naming the chain a specialist works for (`ParentLink`). */
export const PARENT_MEMO = 'batonParent';

/** Memo key holding the run's waiting approvals, for listing them from visibility. */
export const PENDING_MEMO = 'batonPending';
/** Memo key naming who asked for a chain, set by the client that started it (`StartOptions.startedBy`). */
export const STARTED_BY_MEMO = 'batonStartedBy';
/** Memo key naming the run a replay with overrides continues (`{workflowId, runId, from}`). */
export const REPLAY_OF_MEMO = 'batonReplayOf';

/**
 * Memo key of the latest approval or override event (`approval_requested`, `approval_decided`,
 * `decision_refused`, `overrides_applied`, `overrides_refused`); every upsert of it is a history
 * event the audit reads.
 */
export const APPROVAL_EVENT_MEMO = 'batonApprovalEvent';

export {
  ANY_APPROVER,
  APPROVAL_SEARCH_ATTRIBUTES,
  BATON_SEARCH_ATTRIBUTES,
  BatonAgent,
  BatonApprovalDue,
  BatonApprovalTools,
  BatonApprovers,
  BatonHandoffs,
  BatonPendingApprovals,
  BatonStatusAttribute,
  BatonTeam,
  BatonTenant,
  BatonVariant,
} from './searchAttributes';

/** Memo key of the variant a chain or conversation was given in an experiment (`VariantAssignment`), set at its start. */
export const VARIANT_MEMO = 'batonVariant';

/** Memo key of an experiment workflow's state (`ExperimentState`): read without a worker, by describing it. */
export const EXPERIMENT_MEMO = 'batonExperiment';

/** Update: stop an experiment, sending every new chain to `winner`; answers with its state. */
export const stopExperimentUpdate = defineUpdate<ExperimentState, [StopExperiment]>('stopExperiment');

/**
 * Memo key of the chain's team version (`{id, hash}`), set when the snapshot is taken and when a
 * migration or a conversation's upgrade changes it: visibility lists show it on any namespace.
 */
export const TEAM_MEMO = 'batonTeam';

/** Activity type names, as they appear in history. */
export const ActivityType = {
  LOAD_TEAM: 'loadTeam',
  CALL_MODEL: 'callModel',
  /** A model turn as a local activity (`modelActivity: 'local'`); its marker records the input beside the answer. */
  CALL_MODEL_LOCAL: 'callModelLocal',
  RUN_TOOL: 'runTool',
  /** Before the `handoff-record-in-memo` patch: recorded each handoff and ran the hooks. */
  RECORD_HANDOFF: 'recordHandoff',
  /** Runs the `agent_handoff` listeners after a handoff; scheduled only when the worker has some. */
  RUN_HANDOFF_HOOKS: 'runHandoffHooks',
  /** Condenses the conversation a handoff carries (`filter.summarize`). */
  SUMMARIZE_HANDOFF: 'summarizeHandoff',
  /** Runs a handoff's `onHandoff` check, which may veto it. */
  CHECK_HANDOFF: 'checkHandoff',
  /** Picks a specialist with a model when no profile matches a routing request. */
  ROUTE_SPECIALIST: 'routeSpecialist',
  /** Reads the figures a routing strategy picks a specialist by (chains in flight, recent outcomes). */
  SPECIALIST_FIGURES: 'specialistFigures',
  /** Sends a delegated task to a remote agent over A2A and waits for its answer, or for its next wait there. */
  CALL_REMOTE_AGENT: 'callRemoteAgent',
} as const;

/**
 * Memo key of the latest handoff (`RecordHandoffInput`): every upsert of it is a history event, so
 * each handoff is explicit in history without an activity round trip.
 */
export const HANDOFF_MEMO = 'batonHandoff';

/**
 * Memo key of the remote tasks a chain's delegations wait on while someone at the remote agent must
 * act (an approval there): `[{remote, taskId, state, message}]`, empty when none waits.
 */
export const REMOTE_WAITS_MEMO = 'batonRemoteWaits';

export {
  CONVERSATION_EVENT_MEMO,
  conversationQuery,
  endConversationUpdate,
  messageQuery,
  migrateConversationUpdate,
  sendMessageUpdate,
  TURN_MEMO,
} from './conversationMessages';

/**
 * Update: a steering message for a running chain or a conversation's running turn, applied at its
 * next step as a user message recorded with who sent it (`baton.steer`); with `interrupt`, the
 * model call under way stops at once (`baton.interrupt`). Refused (`SteeringRefusedError`,
 * `InvalidRunInputError`, `InputTooLargeError`) when it cannot apply.
 */
export const steerUpdate = defineUpdate<SteerReceipt, [SteerInput]>('steer');

/** Memo key of live records (`LiveRecord`): steering applied, interrupts, mid-turn outcomes, hand-backs. */
export const LIVE_MEMO = 'batonLive';
