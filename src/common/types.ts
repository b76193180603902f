/**
 * Serializable types shared by workflows, activities, the client and the tests.
 *
 * Everything here is plain JSON: it crosses the workflow boundary and is recorded in history.
 * This module is workflow-safe: no I/O, no node builtins, no zod, no openai.
 */

/** JSON Schema of a tool's parameters, as sent to the model. */
export type JsonSchema = Record<string, unknown>;

/** A model, declared as data; the `callModel` activity resolves the provider. */
export type ModelSpec = OpenAIModelSpec | ScriptedModelSpec;

/** A model served by any OpenAI-compatible Chat Completions endpoint. */
export interface OpenAIModelSpec {
  provider: 'openai';
  /** Model name, e.g. `gpt-4o-mini`. */
  model: string;
  settings?: OpenAIModelSettings;
}

/** Non-secret settings of an OpenAI model. The API key never goes into a spec: it stays in the worker. */
export interface OpenAIModelSettings {
  temperature?: number;
  maxTokens?: number;
  /** Endpoint; overrides `OPENAI_BASE_URL`. */
  baseURL?: string;
  /** Per-request timeout of the HTTP call in milliseconds. @default 60000 */
  timeoutMs?: number;
}

/** A deterministic model declared as data: ordered steps, then rules on the latest input. */
export interface ScriptedModelSpec {
  provider: 'scripted';
  /** Display name in the audit and the UI. @default "scripted" */
  model: string;
  /** Answers for this agent's 1st, 2nd, … model call in a run, in order. */
  steps: ScriptedStep[];
  /** Answers chosen by the latest message once the steps are used up; the first match wins. */
  rules: ScriptedRule[];
  /** Fail a run that ends with steps left over ({@link UnconsumedScriptStepsError}). @default true */
  requireAllSteps: boolean;
}

/** One scripted model answer. */
export interface ScriptedStep {
  /** Plain text answer (ends the agent's turn when there are no tool calls). */
  text?: string;
  /** Tool calls to make, `arguments` as an object. */
  toolCalls?: { name: string; arguments: Record<string, unknown> }[];
  /** Sugar for a `handoff` tool call. */
  handoff?: { to: string; message: string };
  /** Fail this many activity attempts with a retryable error before answering. */
  failAttempts?: number;
  /** Wait this long (ms) before answering, as a real model would. */
  delayMs?: number;
  /** Reported token usage. @default derived from text lengths */
  usage?: { inputTokens: number; outputTokens: number };
}

/** A scripted answer chosen by the content of the latest user or tool message. */
export interface ScriptedRule {
  /** Case-insensitive substring that the latest user or tool message must contain; empty matches all. */
  whenIncludes: string;
  reply: ScriptedStep;
}

/** A tool as the model sees it. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: JsonSchema;
}

/** One agent of a team snapshot. */
export interface AgentSpec {
  id: string;
  name: string;
  description: string;
  instructions: string;
  model: ModelSpec;
  /** The agent's own tools (the handoff tool is in {@link AgentSpec.handoffTool}). */
  tools: ToolSpec[];
  /** The agents this one may hand off to. */
  handoffs: string[];
  /** The injected `handoff` tool; absent in a team of one or when `handoffs` is empty. */
  handoffTool?: ToolSpec;
  /** Approval for handoffs into this agent. */
  approval?: ApprovalPolicy;
}

/** The team as recorded in history at the start of each run. */
export interface TeamSpec {
  agents: Record<string, AgentSpec>;
  /** Approval rules for edges (from → to) and targets, beyond each agent's own `approval`. */
  approvals: ApprovalRule[];
  /** Whether the worker has `agent_handoff` listeners. */
  hasHandoffListeners: boolean;
}

/** A tool call requested by the model. `arguments` is the raw JSON text the model produced. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** A conversation message in the Chat Completions shape. */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

/** Tokens and calls spent by a run. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  modelCalls: number;
  toolCalls: number;
}

/** A handoff that happened, as recorded in the chain. */
export interface HandoffRecord {
  from: string;
  to: string;
  message: string;
  /** Workflow time of the handoff, ISO 8601. */
  timestamp: string;
  /** The model turn of the run (1-based) in which the handoff was requested. */
  turn: number;
  /** How the handoff was approved, when it needed approval. */
  approval?: ApprovalRecord;
}

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

/** What to do when a model names a handoff target that does not exist or is not allowed. */
export const InvalidHandoffPolicy = {
  /** Fail the run with `HandoffTargetNotFoundError`. */
  FAIL: 'fail',
  /** Answer the model with a tool error listing the valid targets, a bounded number of times. */
  RETRY: 'retry',
} as const;
export type InvalidHandoffPolicy = (typeof InvalidHandoffPolicy)[keyof typeof InvalidHandoffPolicy];

/** Options of one run. Every field is optional; see {@link resolveRunOptions} for defaults. */
export interface RunOptions {
  /** Handoffs allowed in the run. @default 10 */
  maxHandoffs?: number;
  /** Model turns allowed in one activation of an agent. @default 10 */
  maxTurns?: number;
  /** @default "fail" */
  onInvalidHandoff?: InvalidHandoffPolicy;
  /** With `onInvalidHandoff: 'retry'`: invalid handoffs answered before the run fails. @default 2 */
  maxInvalidHandoffRetries?: number;
  /** Per-attempt timeout of a model call, e.g. `"2 minutes"` or milliseconds. @default "2 minutes" */
  modelTimeout?: string | number;
  /** Per-attempt timeout of a tool call. @default "5 minutes" */
  toolTimeout?: string | number;
  /** Retry policy of model and tool calls. */
  retry?: RetryOptions;
  /** Approval rules for this run; they take precedence over the team's. */
  approvals?: ApprovalRule[];
  /**
   * Continue as new once the run's history has this many events (besides whenever Temporal
   * suggests it), carrying the chain's state into a fresh run. 0 means only when suggested.
   * @default 0
   */
  continueAsNewAfterEvents?: number;
}

/** {@link RunOptions} with every default applied. */
export interface ResolvedRunOptions {
  maxHandoffs: number;
  maxTurns: number;
  onInvalidHandoff: InvalidHandoffPolicy;
  maxInvalidHandoffRetries: number;
  modelTimeout: string | number;
  toolTimeout: string | number;
  retry: Required<RetryOptions>;
  approvals: ApprovalRule[];
  continueAsNewAfterEvents: number;
}

/** What a replay changes in the continued run. */
export interface RunOverrides {
  /** Run options to replace (limits, timeouts, retry, approvals). */
  options?: RunOptions;
  /** Models to use from now on, by agent id. */
  models?: Record<string, ModelSpec>;
}

/** A turn interrupted while its handoff waits for approval. */
export interface OpenTurn {
  /** Every tool call of the turn, in the model's order. */
  calls: ToolCall[];
  /** Answers already known, by tool call id (everything but the handoff call). */
  results: [string, string][];
  handoffCallId: string;
  handoff: { kind: 'handoff'; from: string; to: string; message: string };
  handoffId: string;
}

/** The state of a chain carried across continue-as-new: everything the loop needs to go on. */
export interface LoopState {
  team: TeamSpec;
  options: ResolvedRunOptions;
  agentId: string;
  messages: ChatMessage[];
  chain: HandoffRecord[];
  usage: Usage;
  turns: number;
  activationTurns: number;
  invalidHandoffs: number;
  callCounts: Record<string, number>;
  openTurn?: OpenTurn;
  /** A model answer to act on before the next model call (set by a replay that resumes after it). */
  pendingResponse?: ModelResponse;
  approvals: { pending: PendingApproval[]; decided: ApprovalRecord[] };
  /** Runs before this one. */
  continuedRuns: number;
  /** Set when this chain continues another run through a replay. */
  replayOf?: ReplayOrigin;
}

/** The run a replayed chain continues, and from where. */
export interface ReplayOrigin {
  workflowId: string;
  runId: string;
  /** `failed callModel`, `failed runTool`, `last step` or `handoff N`. */
  from: string;
}

/** Retry settings for model and tool activities. */
export interface RetryOptions {
  /** @default "1 second" */
  initialInterval?: string | number;
  /** @default 2 */
  backoffCoefficient?: number;
  /** @default "1 minute" */
  maximumInterval?: string | number;
  /** Attempts including the first. @default 5 */
  maximumAttempts?: number;
}

/** Input of the `handoffRun` workflow: plain JSON, so any Temporal client can start a chain. */
export interface HandoffRunInput {
  agent: string;
  input: string;
  options?: RunOptions;
  /** Set by the workflow itself when it continues as new; callers leave it out. */
  resume?: LoopState;
}

/** Result of the `handoffRun` workflow. */
export interface HandoffRunResult {
  output: string;
  finalAgent: string;
  handoffChain: HandoffRecord[];
  usage: Usage;
}

/** What the `status` query answers. */
export interface RunStatus {
  status: BatonStatus;
  currentAgent: string;
  handoffs: number;
  turns: number;
  pendingApprovals: PendingApproval[];
}

/** Values of the `BatonStatus` search attribute. */
export const BatonStatus = {
  RUNNING: 'running',
  AWAITING_APPROVAL: 'awaiting_approval',
  COMPLETED: 'completed',
  FAILED: 'failed',
} as const;
export type BatonStatus = (typeof BatonStatus)[keyof typeof BatonStatus];

/** Input of the `callModel` activity. */
export interface CallModelInput {
  agentId: string;
  model: ModelSpec;
  messages: ChatMessage[];
  tools: ToolSpec[];
  /** How many model calls this agent has had before in this run (0-based); scripted models use it. */
  callIndex: number;
}

/** What a model answered. */
export interface ModelResponse {
  content: string | null;
  toolCalls: ToolCall[];
  usage: { inputTokens: number; outputTokens: number };
  /** The model that answered, as the provider reports it. */
  model: string;
}

/** Input of the `runTool` activity. */
export interface RunToolInput {
  agentId: string;
  call: ToolCall;
  /** Stable across retries of this call: see {@link ToolContext.idempotencyKey}. */
  idempotencyKey: string;
}

/** Result of the `runTool` activity: the text the model receives. */
export interface RunToolResult {
  /** `false` when the arguments were invalid or the tool raised a `ToolError`; the model sees the error. */
  ok: boolean;
  content: string;
}

/** A handoff as history records it (the `batonHandoff` memo), and the input of the hook activity. */
export interface RecordHandoffInput {
  handoff: HandoffRecord;
  /** 1-based position of this handoff in the run's chain. */
  index: number;
  /** What every tool call of the handoff's turn was answered, the handoff and any ignored ones included. */
  toolResults: ToolResultRecord[];
}

/** The answer a tool call got, as the model saw it. */
export interface ToolResultRecord {
  toolCallId: string;
  name: string;
  content: string;
}
