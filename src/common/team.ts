/**
 * The team snapshot a run records in history, and the `runTool` activity's input and result.
 * Plain JSON; workflow-safe (no I/O).
 */
import type { NotificationsSpec } from './notifications';
import type { RejectionReason } from './approvalReasons';
import type { GuardrailsSpec, ToolApprovalSpec } from './controls';
import type { EconomicsSpec } from './economics/spec';
import type { ApprovalPolicy, ApprovalRule } from './approvals';
import type { ApprovalTiming } from './approvalTiming';
import type { JsonSchema, ModelSpec, ToolCall, ToolSpec } from './model';
import type { LostWorkerRestart } from './lostWorkers';
import type { ToolSensitivitySpec } from './sensitivity';
import type { TeamNeed, TeamVersion } from './version';
import type { ApproverKey } from './signatures/keys';
import type { JwksSource, KeySetRecord } from './signatures/jwks';
import type { EntryRules } from './authority/entryRules';
import type { RemoteAgentSpec } from './remote';

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
  /** The injected `handoff` tool; absent in a team of one, when `handoffs` is empty, or with per-target tools. */
  handoffTool?: ToolSpec;
  /** Per-target handoff tools (`handoffTools: 'per_target'`): `transfer_to_<id>` unless renamed. */
  handoffTools?: ToolSpec[];
  /** The target of each per-target handoff tool, by tool name. */
  handoffToolTargets?: Record<string, string>;
  /** What each handoff declared with `handoff(target, options)` carries, by target id. */
  handoffOptions?: Record<string, HandoffOptionsSpec>;
  /** The agents this one may delegate tasks to (they answer back), declared with `delegate(target, options)`. */
  delegates?: string[];
  /** Options of each delegate target, by id. */
  delegateOptions?: Record<string, DelegateOptionsSpec>;
  /** The injected `delegate` tool, when the agent has delegates. */
  delegateTool?: ToolSpec;
  /** What this agent is good at, for capability routing. */
  profile?: AgentProfile;
  /** Capability routing the agent is offered: `handoff_to_specialist` (transfer) or `delegate_to_specialist` (delegate). */
  routing?: 'transfer' | 'delegate';
  /** JSON Schema of the agent's structured final answer (its `outputType`). */
  outputSchema?: JsonSchema;
  /** Approval for handoffs into this agent. */
  approval?: ApprovalPolicy;
  /** Guardrails on what the agent receives and on its final answer (custom ones run as the `checkGuardrail` activity). */
  guardrails?: GuardrailsSpec;
  /** Where this agent's model calls run, over the run's `modelActivity`. */
  modelActivity?: 'remote' | 'local';
  /** Who answers a conversation's next message once this agent, handed a turn, has answered it: `stay`, `caller` or an agent id. */
  returnTo?: string;
  /** The agent's tools whose calls need approval, by tool name. */
  toolApprovals?: Record<string, ToolApprovalSpec>;
  /**
   * The agent's tools with sensitive arguments or results, by tool name (`defineTool({sensitive})`,
   * `mcpServer({sensitive})`). Kept apart from `tools`, so it never reaches a model provider. baton
   * redacts those values wherever it shows a call (audit, events, CLI, HTTP); the model gets them,
   * and the workflow history holds them: encrypt it at rest with the AES-GCM payload codec.
   */
  toolSensitivity?: Record<string, ToolSensitivitySpec>;
}

/** The team as recorded in history at the start of each run. */
export interface TeamSpec {
  agents: Record<string, AgentSpec>;
  /** Approval rules for edges (from → to) and targets, beyond each agent's own `approval`. */
  approvals: ApprovalRule[];
  /** The team's approval timing (SLA, reminders, escalation) where a policy and the run set none (docs/approvals.md). */
  approvalPolicy?: ApprovalTiming;
  /** The typed reasons a rejection may give; with them, a rejection's `reason` must be one of their codes (docs/approvals.md). */
  rejectionReasons?: RejectionReason[];
  /** Whether the worker has `agent_handoff` listeners. */
  hasHandoffListeners: boolean;
  /** Whether handoffs may carry state updates and agents can read the run's shared state. */
  sharedState?: boolean;
  /** The team's version: its id, hash and the fingerprints of its parts (snapshots taken before versions have none). */
  version?: TeamVersion;
  /** Approvers' public keys the team trusts for signed decisions (docs/signatures.md). */
  approverKeys?: ApproverKey[];
  /** Identity providers' key sets (JWKS URLs) the team trusts keys of, by key id (docs/signatures.md). */
  jwks?: JwksSource[];
  /**
   * The keys the worker took from the team's `jwks` when it took this snapshot, with where and when
   * it fetched them: the chain trusts them as the team's. Not part of the version.
   */
  keySets?: KeySetRecord[];
  /** `false`: keys a run's options name are not trusted, only the team's. Absent means they are. */
  runApproverKeys?: boolean;
  /**
   * Operators' public keys: an override that loosens what protects a chain applies only when signed
   * by one of them for the operator it names (docs/authority.md).
   */
  operatorKeys?: ApproverKey[];
  /** `true`: an operator's signature must be a passkey's (an `operatorKeys` entry with `webauthn`); an Ed25519 one is refused. */
  requireOperatorPasskey?: boolean;
  /** Where chains may be entered; absent: at every agent that is not gated, gated ones waiting for their approval. */
  entry?: EntryRules;
  /**
   * The team version whose approval policy the chain runs under, when a policy update
   * (`tightenPolicy`) brought a newer team's policy to it; absent: its own version's. Not part of the version.
   */
  policyVersion?: string;
  /**
   * Whether the worker that took the snapshot found the `BatonTeam` search attribute in its
   * namespace, so the run may write it. Not part of the version.
   */
  teamAttribute?: boolean;
  /**
   * Whether the worker that took the snapshot found baton's approval search attributes
   * (`BatonApprovalDue` and the rest) in its namespace, so the run may write them. Not part of the version.
   */
  approvalAttributes?: boolean;
  /**
   * Prices, spend limits and shared breakers: the worker's and the team's, resolved when the snapshot
   * was taken, so a chain is priced and limited by what it ran under. Not part of the version.
   */
  economics?: EconomicsSpec;
  /** The kinds of notification channel the team has (docs/notifications.md). Not part of the version. */
  notifications?: NotificationsSpec;
  /**
   * The largest payload the snapshotting worker's namespace takes (its blob size limit, less what
   * the data converter adds), when the worker neither compresses nor claim-checks payloads: a model
   * call whose conversation is larger fails the chain instead of failing its workflow task again
   * and again. Not part of the version.
   */
  payloadLimit?: number;
  /** Agents of other teams reached over A2A, by id, that the team's agents delegate tasks to (`remoteAgent`). */
  remotes?: Record<string, RemoteAgentSpec>;
}

/** What an agent is good at, declared for capability routing (Jazz's profiles). */
export interface AgentProfile {
  /** e.g. "refunds", "research". */
  specialization: string;
  capabilities: string[];
  description?: string;
  /** Example tasks. */
  examples?: string[];
  /** Whether routing may send work to it. @default true */
  acceptsHandoffs?: boolean;
}

/** Options of a delegation to one specialist; plain data, recorded with the team. */
export interface DelegateOptionsSpec {
  description?: string;
  reason?: string;
  /** The specialist's own limits. */
  maxTurns?: number;
  maxHandoffs?: number;
  /**
   * What one delegated task may spend on model calls (its own specialists included), in the currency
   * of the team's prices; the caller's `maxCost` left over bounds it too. @default what the caller has left, or no limit
   */
  maxCost?: number;
  /** How long the specialist may take, e.g. "5 minutes". @default no limit */
  timeout?: string | number;
  /** A failing, timed-out or cancelled specialist: an error result the caller acts on, or the caller's failure. @default "report" */
  onFailure?: 'report' | 'fail';
}

/** Which conversation a handoff target starts from (besides its own instructions and its input). */
export const HandoffContext = {
  /** Nothing of the source's conversation: the target gets only its input. */
  MESSAGE: 'message',
  /** The source's whole conversation, filtered as declared. */
  FULL: 'full',
  /** The source's last user message. */
  LAST_USER_MESSAGE: 'last_user_message',
} as const;
export type HandoffContext = (typeof HandoffContext)[keyof typeof HandoffContext];

/** Filters applied, in this order, to the conversation a handoff carries. */
export interface HandoffFilter {
  /** Drop tool calls and their results (assistant text is kept). */
  dropToolCalls?: boolean;
  /** Keep only the last N messages. */
  lastMessages?: number;
  /**
   * Condense what is left into a summary with a model call (the `summarizeHandoff` activity,
   * recorded), which the target gets instead of the messages.
   */
  summarize?: boolean | { instructions?: string };
}

/**
 * When a handoff is offered, evaluated in the workflow on the run's state; every condition given
 * must hold. A target whose rule fails is left out of the handoff tool for that turn.
 */
export interface HandoffRule {
  /** Only after each of these tools has run in the current agent's activation. */
  afterTools?: string[];
  /** Only while the chain has used fewer tokens than this. */
  whileTokensBelow?: number;
  /** Only while the chain has made fewer handoffs than this. */
  whileHandoffsBelow?: number;
  /** Only when the shared state's `context` has these values (JSON equality). */
  whenContext?: Record<string, unknown>;
}

/** What a handoff declared with `handoff(target, options)` carries; plain data, recorded with the team. */
export interface HandoffOptionsSpec {
  /** Name of the per-target tool. */
  toolName?: string;
  /** Replaces the target's description in the handoff tool. */
  description?: string;
  /** Why to hand off to this target, shown in the tool description. */
  reason?: string;
  /** @default "message" */
  context?: HandoffContext;
  /** Give the target the source's instructions too (as a second system message). @default false */
  transferSystemMessage?: boolean;
  filter?: HandoffFilter;
  /**
   * The target's input: `"message"` (the handoff message), `"rich"` (the original request, why it
   * receives the work, its task, work done and recent history), or a template with `{{message}}`,
   * `{{reason}}`, `{{from}}`, `{{to}}`, `{{request}}`, `{{completedWork}}`, `{{recentHistory}}`,
   * `{{input}}`, `{{input.<field>}}`, `{{state}}`. @default "message"
   */
  input?: string;
  /** JSON Schema of the handoff's typed input (its `inputType`). */
  inputSchema?: JsonSchema;
  isEnabled?: HandoffRule;
  /** Whether the worker runs an `onHandoff` check (which may veto) before the handoff. */
  onHandoff?: boolean;
  /** Who answers a conversation's next message once the target has answered: `stay` (the target), `caller`, or an agent id. */
  returnTo?: string;
}

/** What a handoff may add to the run's shared state (the Command update of the v4.1 protocol). */
export interface StateUpdate {
  /** Merged key by key into the shared `context` (a key set to `null` is removed). */
  context?: Record<string, unknown>;
  /** Appended to the shared `artifacts`. */
  artifacts?: unknown[];
  /** Merged key by key into the shared `workflowState` (a key set to `null` is removed). */
  workflowState?: Record<string, unknown>;
}

/** The run's shared state: every update handoffs carried, merged in order. */
export interface SharedState {
  context: Record<string, unknown>;
  artifacts: unknown[];
  workflowState: Record<string, unknown>;
}

/** Input of the `checkHandoff` activity, which runs a handoff's `onHandoff` in the worker. */
export interface CheckHandoffInput {
  from: string;
  to: string;
  message: string;
  input?: unknown;
  /** What of the run's team this call needs from the worker that runs it; a worker that lacks it refuses the call (`TeamMismatchError`). */
  team?: TeamNeed;
}

/** Result of the `checkHandoff` activity: a reason when `onHandoff` vetoed the handoff. */
export interface CheckHandoffResult {
  veto?: string;
}

/** Input of the `runTool` activity. */
export interface RunToolInput {
  agentId: string;
  call: ToolCall;
  /** Stable across retries of this call: see {@link baton-agents!ToolContext.idempotencyKey | ToolContext.idempotencyKey}. */
  idempotencyKey: string;
  /** The run's application context, when it has one. */
  context?: RunContext;
  /** Set when the call was started again after its worker was lost (see the `lostWorkerRetries` run option). */
  lostWorker?: LostWorkerRestart;
  /** What of the run's team this call needs from the worker that runs it; a worker that lacks it refuses the call (`TeamMismatchError`). */
  team?: TeamNeed;
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
  /** `tool` when the tool itself reported the failure (a `ToolError`): it counts toward the agent's circuit breaker. */
  failure?: 'tool';
}
