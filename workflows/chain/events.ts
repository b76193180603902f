/**
 * What can happen to a chain: the events the chain's reducer (`reduce` in `state.ts`) folds
 * into its state, and the cost fold (`costs.ts`) prices. Kept below both, so each reads them.
 *
 * Pure: no Temporal API, no I/O.
 */
import type { TeamPolicy } from '../../src/common/authority/policyUpdate';
import type { ControlEvent } from '../../src/common/controls';
import type { ChatMessage, ModelResponse } from '../../src/common/model';
import type { HandoffRecord, RunOverrides, ToolResultRecord, Usage } from '../../src/common/run';
import type { OperatorIdentity } from '../../src/common/signatures/operator';
import type { OpenTools, OpenTurn } from '../../src/common/state';
import type { ApprovalEvent } from './approvalState';

/** Something that happened to a chain. */
export type ChainEvent =
  /** A model turn of the current agent starts (counted before the call). */
  | { type: 'turn_started' }
  /** The model answered: usage, and its message in the conversation. */
  | { type: 'model_responded'; response: ModelResponse }
  /** Tool calls of the turn ran as activities. */
  | { type: 'tools_ran'; count: number }
  /** The turn waits for a decision on its handoff. */
  | { type: 'turn_opened'; turn: OpenTurn }
  /** The turn's tool calls wait for approval (cleared once they are gated: `tools_ran`). */
  | { type: 'tools_waiting'; open: OpenTools }
  /** Every tool call of the turn got its answer, in the model's order. */
  | { type: 'turn_closed'; results: ToolResultRecord[] }
  /**
   * A handoff happened: the target takes over, starting from `messages` (its instructions and the
   * handoff message when absent), and the record's state update is merged into the shared state.
   */
  | { type: 'handed_off'; record: HandoffRecord; messages?: ChatMessage[] }
  /** A model call made for the chain outside an agent's turn (a handoff's summary). */
  | { type: 'model_used'; usage: { inputTokens: number; outputTokens: number; cachedInputTokens?: number } }
  | { type: 'invalid_handoff_answered' }
  /** A final answer was sent back to the model, with this message, by the guard that refused it. */
  | { type: 'answer_refused'; guard: string; message: string }
  /** An approval asked for, decided, moved on by its policy, or voted on (approvalState.ts). */
  | ApprovalEvent
  | { type: 'overridden'; overrides: RunOverrides & { identity?: OperatorIdentity } }
  /** A policy update brought a team's approval policies to the chain (only ever tighter: `tightenPolicy`). */
  | { type: 'policy_updated'; policy: TeamPolicy }
  /** A control acted (a loop, a breaker, a guardrail, a budget), at workflow time `at` (ms). */
  | { type: 'control'; event: ControlEvent; at: number }
  /** Steering messages sent to the running chain join the current agent's conversation as user messages. */
  | { type: 'steered'; messages: string[] }
  /** A decision carried into this run (`decidedCalls`, under `key`) decided its call, and is used up. */
  | { type: 'carried_decision_used'; key: string }
  /** A routing strategy picked a specialist for a request of this kind. */
  | { type: 'routed'; kind: string }
  /** A specialist's chain ended: its usage joins this chain's, and an answer counts as progress. */
  | { type: 'delegation_ended'; agent: string; ok: boolean; usage?: Usage; usageByAgent?: Record<string, Usage> };
