/**
 * The team snapshot a run records in history, and the `runTool` activity's input and result.
 * Plain JSON; workflow-safe (no I/O).
 */
import type { ApprovalPolicy, ApprovalRule } from './approvals';
import type { JsonSchema, ModelSpec, ToolCall, ToolSpec } from './model';

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
  /** JSON Schema of the agent's structured final answer (its `outputType`). */
  outputSchema?: JsonSchema;
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

/** Input of the `runTool` activity. */
export interface RunToolInput {
  agentId: string;
  call: ToolCall;
  /** Stable across retries of this call: see {@link ToolContext.idempotencyKey}. */
  idempotencyKey: string;
  /** The run's application context, when it has one. */
  context?: RunContext;
}

/**
 * Application data of one run that its tools receive (`ToolContext.context`): plain JSON, recorded
 * in history, so never secrets. Give tools clients and keys when the worker builds them instead.
 */
export type RunContext = Record<string, unknown>;

/** Result of the `runTool` activity: the text the model receives. */
export interface RunToolResult {
  /** `false` when the arguments were invalid or the tool raised a `ToolError`; the model sees the error. */
  ok: boolean;
  content: string;
}
