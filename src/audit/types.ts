/**
 * The shape of the audit chain (schema `baton.audit/v1`): what `baton.audit(workflowId)` returns
 * and `baton audit --json` prints.
 */
import type { LiveRecord } from '../common/live';
import type { ControlEvent } from '../common/controls';
import type { HandoffRecord, HandoffRunInput, HandoffRunResult, ParentLink, TransferRecord } from '../common/run';
import type { RoutingDecision } from '../common/routing';
import type { TeamSpec } from '../common/team';
import type { Cost } from '../common/economics/prices';
import type { HistoryEvent } from '../payloads/read';
import type { ApprovalAuditEvent } from './approvalEvents';

/** Version tag of the audit JSON; a breaking change to its shape gets a new one. */
export const AUDIT_SCHEMA = 'baton.audit/v1';

/** How a run ended, or `running`. */
export type AuditStatus =
  'running' | 'completed' | 'failed' | 'cancelled' | 'terminated' | 'timed_out' | 'continued_as_new';

/** What an activity-backed event shows of its execution. */
export interface Execution {
  /** `not_scheduled`: the model asked for the call, but the run ended (or stopped) before it was scheduled. */
  status: 'not_scheduled' | 'scheduled' | 'running' | 'completed' | 'failed' | 'timed_out' | 'cancelled';
  /** Attempts made (1 when it worked first time). */
  attempts: number;
  /** From scheduling to the end, across retries. */
  latencyMs?: number;
  error?: string;
  /** Times the call was started again because its worker was lost (see the `lostWorkerRetries` run option). */
  lostWorkers?: number;
}

/** How a handoff the model asked for ended. */
export const HandoffRequestOutcome = {
  /** It happened: the `handoff` event with the same `index` records it. */
  EXECUTED: 'executed',
  /** It waits for a person's decision (`handoffId`). */
  AWAITING_APPROVAL: 'awaiting_approval',
  /** A person rejected it; the model was told so. */
  REJECTED: 'rejected',
  /** Nobody decided in time and the policy said reject (the model was told) or fail (the run failed). */
  TIMED_OUT: 'timed_out',
  /** The agent may not hand off to that target: the model was told the valid ones, or the run failed. */
  INVALID_TARGET: 'invalid_target',
  /** The call's arguments were not `{to, message}`; the model was told what was wrong. */
  INVALID_ARGUMENTS: 'invalid_arguments',
  /** A later handoff call of the same turn: only the first one of a turn counts. */
  IGNORED: 'ignored',
  /** A limit (e.g. `maxHandoffs`) or another control refused it; `reason` says why. */
  REFUSED: 'refused',
  /** The run ended before the handoff was weighed, or while it waited for approval. */
  ABANDONED: 'abandoned',
  /** History ends before the workflow acted on it (a running or stuck run). */
  PENDING: 'pending',
} as const;
export type HandoffRequestOutcome = (typeof HandoffRequestOutcome)[keyof typeof HandoffRequestOutcome];

/** Who answered a tool call: the tool's `execute` in a `runTool` activity, or the workflow itself. */
export type AnsweredBy = 'tool' | 'workflow';

/** A tool call the model made, other than a handoff. */
export interface ToolCallEvent {
  kind: 'tool_call';
  agent: string;
  tool: string;
  /** The arguments the call ran with (JSON text): the model's, or an approver's edit of them. */
  arguments: string;
  /** The arguments the model wrote, when an approver edited them before the call ran. */
  requestedArguments?: string;
  /** The id the model gave the call; providers may leave it empty or repeat it. */
  callId?: string;
  /** `workflow`: the agent has no such tool, and baton answered the call without an activity. */
  answeredBy: AnsweredBy;
  /** `false` when the tool refused its arguments or raised a `ToolError`. */
  ok?: boolean;
  /** What the model was told; absent until history shows it. */
  result?: string;
  /** The `runTool` activity; absent when the workflow answered. */
  execution?: Execution;
  /** The approval (its id) the call ran under, when it waited for one. */
  approval?: string;
  /** The history event (of the event's run) whose result `result` shows: the `runTool` activity's completion. */
  resultEventId?: number;
}

/** A handoff call the model made, and how it ended. */
export interface HandoffRequestedEvent {
  kind: 'handoff_requested';
  from: string;
  /** The target the call named; empty when its arguments did not name one. */
  to: string;
  message: string;
  callId?: string;
  outcome: HandoffRequestOutcome;
  /** What the model was told about its call; absent until history shows it. */
  answer?: string;
  /** The approval's id, when the handoff waited for one. */
  handoffId?: string;
  /** Its position in the chain, when executed. */
  index?: number;
  /** Why it did not happen: the problem with its arguments, or the failure that ended the run. */
  reason?: string;
  /** The raw arguments, when they were invalid. */
  arguments?: string;
}

/** A model turn: one `callModel` activity. */
export interface ModelTurnEvent {
  kind: 'model_turn';
  agent: string;
  model: string;
  inputTokens?: number;
  outputTokens?: number;
  /** Of the input tokens, those the provider served from its prompt cache. */
  cachedInputTokens?: number;
  /** What the call cost at the price the chain's snapshot had for its model (chains with economics; `unpricedCalls: 1` when it had none). */
  cost?: Cost;
  content?: string | null;
  toolCalls?: { name: string; arguments: string }[];
  execution: Execution;
}

/**
 * Something a control did, as the workflow recorded it: `control` names what (`loop_detected`,
 * `breaker_opened`, `guardrail_tripped`, `budget_exceeded`, …), with that event's fields.
 */
export type ControlAuditEvent = { kind: 'control' } & (ControlEvent extends infer E
  ? E extends { kind: infer K }
    ? { control: K } & Omit<E, 'kind'>
    : never
  : never);

/**
 * One step of the chain, in history order: `runId` and `eventId` name the history event it was read
 * from, `at` is that event's time. A model's calls are asked for where the model answered (in the
 * order it made them); a tool call is where it ran (after its approval, when it waited for one), or,
 * when the workflow answered it, where that answer shows; a handoff request is where the model asked.
 */
export type AuditEvent = { at: string; runId: string; eventId: number } & (
  | { kind: 'run_started'; input: HandoffRunInput }
  /** The team snapshot the run took; `team` is its version id (`support@2026-11-24`). */
  | { kind: 'team_snapshot'; agents: string[]; team?: string; execution: Execution }
  /** The chain went on with another team: a migration (`baton replay --on-current-team`), or a conversation's upgrade between turns. */
  | {
      kind: 'team_changed';
      from: string;
      to: string;
      by: 'migration' | 'upgrade';
      beforeTurn: number;
      deployment?: string;
    }
  | ModelTurnEvent
  | ToolCallEvent
  | HandoffRequestedEvent
  /** A message the workflow added to the conversation, e.g. the nudge after an empty answer. */
  | { kind: 'workflow_message'; agent: string; content: string }
  /** An approval asked for, decided, reminded of, escalated, voted on, asked about; a decision, question or report refused. */
  | ApprovalAuditEvent
  | { kind: 'signal'; name: string; input: unknown }
  | { kind: 'update'; name: string; input: unknown }
  /** A handoff that happened; `transfer` says what its target received when the handoff was declared with options. */
  | ({ kind: 'handoff'; index: number; transfer?: TransferRecord } & HandoffRecord)
  /** A workflow task that failed (a defect or a non-determinism); Temporal retries it. */
  | { kind: 'workflow_task_failed'; cause?: string; message: string }
  /** `output` is the answer's text, or its value when the agent has an `outputType`. */
  | { kind: 'final_answer'; agent: string; output: unknown }
  | { kind: 'failed'; type?: string; message: string }
  | { kind: 'cancelled' }
  | { kind: 'terminated'; reason?: string }
  | { kind: 'timed_out' }
  | { kind: 'continued_as_new' }
  | { kind: 'replayed_from'; baseRunId: string; reason: string }
  /** A steering message applied (with who sent it), a model call interrupted, a mid-turn policy's outcome, a hand-back. */
  | { kind: 'live'; record: LiveRecord }
  /**
   * A specialist this chain delegated to, run as a child chain (where it was started); its own audit
   * is in `children`. `outcome`, `output` and `error` sum up how it ended, which `delegation_ended` records when it did.
   */
  | {
      kind: 'delegation';
      from?: string;
      to: string;
      childWorkflowId: string;
      task: string;
      outcome: DelegationOutcome;
      output?: unknown;
      error?: string;
    }
  /** A specialist's chain ended: its answer (`output`) went back to the agent that delegated, or it failed. */
  | {
      kind: 'delegation_ended';
      from?: string;
      to: string;
      childWorkflowId: string;
      outcome: Exclude<DelegationOutcome, 'running'>;
      output?: unknown;
      error?: string;
    }
  /** A routing strategy picked one of several specialists that matched a request equally well, with the figures it used. */
  | ({ kind: 'routing_decided' } & Omit<RoutingDecision, 'type'>)
  | { kind: 'overrides_applied'; options?: Record<string, unknown>; models?: Record<string, unknown> }
  | { kind: 'overrides_refused'; problems: string[] }
  /** A newer team's approval policies applied to the running chain (`tightenPolicy`), by whom, and what they tightened. */
  | { kind: 'policy_updated'; from: string; to: string; tightened: string[]; appliedBy: string; reason?: string }
  | ControlAuditEvent
);

/** How a specialist's chain ended, or `running`. */
export type DelegationOutcome = 'running' | 'completed' | 'failed' | 'timed_out' | 'cancelled' | 'terminated';

/** A chain as its history tells it. */
export interface AuditChain {
  schema: typeof AUDIT_SCHEMA;
  workflowId: string;
  /** Oldest first; more than one when the chain continued as new. */
  runIds: string[];
  status: AuditStatus;
  startedAt?: string;
  closedAt?: string;
  input?: HandoffRunInput;
  team?: TeamSpec;
  events: AuditEvent[];
  /** The handoffs that happened, in order. */
  handoffs: HandoffRecord[];
  /** The run's result; `output` is a value rather than text when the final agent has an `outputType`. */
  result?: Omit<HandoffRunResult, 'output'> & { output: unknown };
  failure?: { type?: string; message: string };
  /** Set when a running chain's last workflow task failed: it makes no progress until that is fixed. */
  stuck?: { since: string; error: string };
  /** Runs this chain was replayed from (Temporal reset), oldest first. */
  lineage: { runId: string; replayedFrom: string; reason: string; at: string }[];
  /** When the audited run was itself replayed: the run that continued it. */
  replayedBy?: string;
  /** When this chain is a specialist: the chain it worked for. */
  parent?: ParentLink;
  /** The chains of the specialists it delegated to, in the order they started (filled by `baton.audit`). */
  children?: AuditChain[];
}

/** One run's history, with its run id. */
export interface RunHistory {
  runId: string;
  events: HistoryEvent[];
}
