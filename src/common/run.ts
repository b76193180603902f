/**
 * One chain as other programs see it: the `handoffRun` input and result, the handoff records, the
 * status and usage. Plain JSON; workflow-safe (no I/O).
 */
import type { BudgetExceeded, ControlCounters } from './controls';
import type { Cost } from './economics/prices';
import type { ApprovalRecord, PendingApproval } from './approvals';
import type { ChatMessage, ModelSpec } from './model';
import type { RunOptions } from './options';
import type { ChainState } from './state';
import type { HandoffContext, RunContext, SharedState, StateUpdate } from './team';

/** Tokens and calls spent by a run. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  modelCalls: number;
  toolCalls: number;
  /**
   * What the model calls cost at the prices of the chain's team snapshot (chains started with the
   * `baton-economics` patch); `unpricedCalls` above 0 means the cost is unknown.
   */
  cost?: Cost;
}

/** A handoff that happened, as recorded in the chain. */
export interface HandoffRecord {
  from: string;
  to: string;
  message: string;
  /** Workflow time of the handoff, ISO 8601. */
  timestamp: string;
  /** The model turn of the chain (1-based) in which the handoff was requested. */
  turn: number;
  /** How the handoff was approved, when it needed approval. */
  approval?: ApprovalRecord;
  /** The handoff's typed input, parsed (when the target declares an `inputType`). */
  input?: unknown;
  /** The state update the handoff carried (teams with `sharedState`). */
  update?: StateUpdate;
}

/** How a handoff's target got its start: what it was given and what produced it. */
export interface TransferRecord {
  context: HandoffContext;
  /** `message`, `rich`, or `template`. */
  input: string;
  /** The filters applied, in order, e.g. `dropToolCalls`, `last 6`, `summarize`. */
  filters: string[];
  transferSystemMessage: boolean;
  /** The exact conversation the target's first model call starts from. */
  messages: ChatMessage[];
}

/** The answer a tool call got, as the model saw it. */
export interface ToolResultRecord {
  toolCallId: string;
  name: string;
  content: string;
}

/**
 * A handoff as history records it: the value of the `batonHandoff` memo (each upsert is a
 * `WorkflowPropertiesModified` event) and the input of the hook activity.
 */
export interface RecordHandoffInput {
  /**
   * One readable line, `#2 triage → refunds (approved by alice)`: what
   * `temporal workflow show --detailed` prints as `upsertedMemo.fields.batonHandoff.summary`.
   * Absent in records written before it existed.
   */
  summary?: string;
  handoff: HandoffRecord;
  /** 1-based position of this handoff in the chain. */
  index: number;
  /** What every tool call of the handoff's turn was answered, the handoff and any ignored ones included. */
  toolResults: ToolResultRecord[];
  /** What the target received; absent in records written before it existed. */
  transfer?: TransferRecord;
}

/** What `baton.override` (the `overrideRun` signal) and a replay change in a run. */
export interface RunOverrides {
  /** Run options to replace (limits, timeouts, retry, approvals). */
  options?: RunOptions;
  /** Models to use from now on, by agent id. */
  models?: Record<string, ModelSpec>;
  /**
   * The operator who allows a loosening of what protects the chain (docs/authority.md), with
   * `signature`: without them an override may only tighten.
   */
  operator?: string;
  /** The operator's JWS over this chain, `operator` and the digest of `options` and `models`, by a key of the team's `operatorKeys`. */
  signature?: string;
}

/** Input of the `handoffRun` workflow: plain JSON, so any Temporal client can start a chain. */
export interface HandoffRunInput {
  agent: string;
  input: string;
  options?: RunOptions;
  /** Application data the run's tools receive (`ToolContext.context`); plain JSON, recorded in history. */
  context?: RunContext;
  /** Set when this run is a specialist a parent chain delegated to. */
  parent?: ParentLink;
  /**
   * The chain to continue: set by the workflow when it continues as new, and by `baton.replay`
   * with overrides. Other callers leave it out.
   */
  resume?: ChainState;
}

/** The chain a delegated run works for. */
export interface ParentLink {
  workflowId: string;
  /** The first chain of the tree. */
  rootWorkflowId: string;
  /** 1 for a specialist of a top chain, 2 for its specialist, … */
  depth: number;
  /** The token the calling chain gave this specialist: its reports of waiting approvals carry it. */
  token?: string;
  /** The team version of the chain that delegated: the specialist's chain runs on the same team. */
  team?: { id: string; hash: string };
  /** The conversation's turn the specialist works for, so its text joins that turn's stream. */
  turn?: number;
  /** The idempotency key of the conversation message the specialist works for. */
  message?: string;
}

/**
 * Result of the `handoffRun` workflow. `output` is the final agent's answer: its text, or the
 * parsed value when the agent has an `outputType`.
 */
export interface HandoffRunResult<Output = string> {
  output: Output;
  finalAgent: string;
  handoffChain: HandoffRecord[];
  usage: Usage;
  /** The run's shared state at the end (teams with `sharedState`). */
  state?: SharedState;
  /** Usage per agent, specialists' included (`usage` counts them too). */
  usageByAgent?: Record<string, Usage>;
  /**
   * Usage by handoff edge: `triage→refunds` holds the work of each activation of `refunds` that a
   * handoff from `triage` started, `→triage` the first agent's work before any handoff.
   */
  usageByEdge?: Record<string, Usage>;
  /** Usage of the specialists' chains by delegation edge, `triage→refunds` (their own specialists' included). */
  usageByDelegation?: Record<string, Usage>;
  /** How many times each control acted: loops detected, breakers opened and refusals, guardrail trips, budgets, tool approvals. */
  controls?: ControlCounters;
  /** The budget that ran out when the agent was given one last turn to answer (`onBudgetExceeded: 'final_answer'`). */
  budgetExceeded?: BudgetExceeded;
}

/** What the `status` query answers. */
export interface RunStatus {
  status: BatonStatus;
  currentAgent: string;
  handoffs: number;
  turns: number;
  pendingApprovals: PendingApproval[];
}

/** Values of the `BatonStatus` search attribute: what is true of the run that carries it. */
export const BatonStatus = {
  RUNNING: 'running',
  AWAITING_APPROVAL: 'awaiting_approval',
  COMPLETED: 'completed',
  FAILED: 'failed',
  /** The run was cancelled. */
  CANCELLED: 'cancelled',
  /** The run handed the chain to a new run of the same workflow id (continue-as-new). */
  CONTINUED_AS_NEW: 'continued_as_new',
} as const;
export type BatonStatus = (typeof BatonStatus)[keyof typeof BatonStatus];
