/**
 * The state of a chain: what the loop works on, what continue-as-new carries into the next run,
 * and what a replay rebuilds from history. Plain JSON; workflow-safe (no I/O).
 */
import type { ApprovalRecord, PendingApproval } from './approvals';
import type { ControlState } from './controls';
import type { EconomicsState } from './economics/chain';
import type { HandoffResult } from './handoff';
import type { ChatMessage, ModelResponse, ToolCall } from './model';
import type { ResolvedRunOptions } from './options';
import type { HandoffRecord, ParentLink } from './records';
import type { RoutingCounts } from './routing';
import type { RunContext, SharedState, TeamSpec } from './team';
import type { Usage } from './usage';

/** A turn interrupted while its handoff waits for approval. */
export interface OpenTurn {
  /** Every tool call of the turn, in the model's order. */
  calls: ToolCall[];
  /** Answers already known, by tool call id (everything but the handoff call). */
  results: [string, string][];
  handoffCallId: string;
  handoff: HandoffResult;
  handoffId: string;
}

/**
 * A turn whose tool calls wait for approval, carried into the next run when the run continues as
 * new meanwhile: the model's answer (already in the conversation), and the approval each call
 * waits on or was decided by, by the call's place in the answer's `toolCalls` (`"0"`, `"1"`, …).
 */
export interface OpenTools {
  response: ModelResponse;
  asked: Record<string, string>;
}

/** The state of a chain: everything the loop needs to go on. */
export interface ChainState {
  team: TeamSpec;
  options: ResolvedRunOptions;
  /** The highest passkey counter the chain took from each operator key (by kid), so an operator's assertion is taken once (docs/authority.md). */
  operatorSignCounts?: Record<string, number>;
  /** The `iat` (seconds) of the newest operator signature taken, by operator key id: each is taken once. */
  operatorSignedAt?: Record<string, number>;
  /** The agent working now. */
  agentId: string;
  /** Its conversation. */
  messages: ChatMessage[];
  chain: HandoffRecord[];
  usage: Usage;
  /** Model turns in the whole chain, across runs. */
  turns: number;
  /** Model turns of the current activation of the agent. */
  activationTurns: number;
  /** Invalid handoffs answered so far (`onInvalidHandoff: 'retry'`). */
  invalidHandoffs: number;
  /** Model calls per agent in the chain (scripted models answer by it). */
  callCounts: Record<string, number>;
  /** Final answers of the current activation sent back to the model, by the guard that refused them. */
  answerRetries?: Record<string, number>;
  /** The run's application context for its tools. */
  context?: RunContext;
  /** The chain's original request (the run's input), for handoff input templates. */
  request?: string;
  /** The shared state handoffs have updated (teams with `sharedState`). */
  shared?: SharedState;
  /** The chain this one works for, when it is a delegated specialist. */
  parent?: ParentLink;
  openTurn?: OpenTurn;
  /** A turn whose tool calls wait for approval (the run continues it without calling the model again). */
  openTools?: OpenTools;
  /** A model answer to act on before the next model call (set by a replay that resumes after it). */
  pendingResponse?: ModelResponse;
  /** `toolCalls`: which call each tool approval was asked for (its tool and arguments, as `toolCallKey` names them), by approval id. */
  approvals: { pending: PendingApproval[]; decided: ApprovalRecord[]; toolCalls?: Record<string, string> };
  /** Runs before this one. */
  continuedRuns: number;
  /** Loop detection, breakers, budgets and their counters (chains started with the `baton-controls` patch). */
  controls?: ControlState;
  /** Costs by edge and delegation, and a conversation's money budget (chains started with the `baton-economics` patch). */
  economics?: EconomicsState;
  /** Set when this chain continues another run through a replay. */
  replayOf?: ReplayOrigin;
  /** Set by a migration (`baton replay --on-current-team`): the run takes the current team first and goes on with it. */
  migrate?: MigrationRequest;
  /**
   * Decisions already made on the calls of `pendingResponse`, carried into a run that resumes after
   * that answer, by tool call id (its handoff call's under `handoff:<id>`, with the target it was
   * asked for, and used once): a call decided once is not put in front of people again.
   */
  decidedCalls?: Record<string, { callHash: string; record: ApprovalRecord; to?: string }>;
  /** Routing requests decided by a `routingStrategy`, by the kind of specialist asked for (the round robin's place). */
  routingCounts?: RoutingCounts;
}

/** What a migration onto the current team carries. */
export interface MigrationRequest {
  /** The team version the chain ran on. */
  from: string;
  /**
   * Where the chain goes on when the current team lacks the agent it stands at: the turn of the
   * agent that handed off to it, its tool calls answered, the handoff call to be answered by the run.
   */
  fallback?: MigrationFallback;
}

/** The turn that handed off to an agent, to go on from when that agent is gone. */
export interface MigrationFallback {
  agentId: string;
  /** Its conversation up to and with the model's answer that asked for the handoff. */
  messages: ChatMessage[];
  /** The answers of that answer's other tool calls. */
  answers: { toolCallId: string; content: string }[];
  handoffCallId: string;
  /** The agent it handed off to. */
  to: string;
}

/** The run a replayed chain continues, and from where. */
export interface ReplayOrigin {
  workflowId: string;
  runId: string;
  /** `failed callModel`, `failed runTool`, `last step` or `handoff N`. */
  from: string;
}
