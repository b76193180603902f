/**
 * One chain as other programs see it: the `handoffRun` input and result, the handoff records, the
 * status and usage. Plain JSON; workflow-safe (no I/O).
 */
import type { BudgetExceeded, ControlCounters } from './controls';
import type { PendingApproval } from './approvals';
import type { ModelSpec } from './model';
import type { RunOptions } from './options';
import type { HandoffRecord, ParentLink } from './records';
import type { ChainState } from './state';
import type { RunContext, SharedState } from './team';
import type { Usage } from './usage';

export type { HandoffRecord, ParentLink, RecordHandoffInput, ToolResultRecord, TransferRecord } from './records';
export type { Usage } from './usage';

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
