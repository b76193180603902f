/**
 * What a run's events say (`run.events()`, `GET /v1/runs/:id/events`): a model called, answered or
 * stopped, a tool called and answered, a handoff, an approval asked for and decided, a control's
 * act, a specialist's work between its start and end, and how the run ended.
 */
import type { ApprovalRecord, PendingApproval } from '../common/approvals';
import type { DelegationOutcome } from '../audit/types';
import type { ControlEvent } from '../common/controls';
import type { ModelResponse } from '../common/model';
import type { Cost } from '../common/economics/prices';
import type { HandoffRecord, HandoffRunResult } from '../common/run';
import type { SensitiveArguments } from '../common/sensitive';

/**
 * Something that happened in a run, in history order. `at` is the event's time (ISO 8601). The
 * sensitive arguments of a tool call waiting for approval, and of a decision's edited arguments,
 * show as `"[redacted]"` (`approval.sensitive` says which); the history keeps the real values.
 */
export type RunEvent = { at: string; runId: string } & RunEventBody;

/** What a {@link RunEvent} says. */
export type RunEventBody =
  /** `call` names the model call (`<agent>#<n>`) as the text streamed for it does. */
  | { kind: 'model_call'; agent: string; call?: string }
  /**
   * `text` is the answer's text as history records it (`null` when the model wrote none, only tool
   * calls); `usage` what the call used, `cost` what it cost at the chain's prices (chains with economics).
   */
  | {
      kind: 'model_answered';
      agent: string;
      call?: string;
      text?: string | null;
      usage?: ModelResponse['usage'];
      cost?: Cost;
    }
  /** A model call stopped before it answered (an interrupt): the text it streamed is not part of any answer. */
  | { kind: 'model_stopped'; agent: string; call?: string }
  | { kind: 'tool_call'; agent: string; tool: string }
  | { kind: 'tool_answered'; agent: string; tool: string }
  | { kind: 'handoff'; index: number; handoff: HandoffRecord }
  | { kind: 'approval_requested'; approval: PendingApproval & { sensitive?: SensitiveArguments } }
  | { kind: 'approval_decided'; decision: ApprovalRecord }
  /** A control acted: a loop refused, a circuit breaker opened or closed, a guardrail tripped, a budget ran out. */
  | { kind: 'control'; control: ControlEvent }
  /** `agent` delegated `task` to the specialist `to`, whose chain runs as the workflow `workflowId` (its own run page, audit and events). */
  | { kind: 'delegation_started'; agent: string; to: string; workflowId: string; task: string }
  /** Something that happened in a specialist's chain (`workflowId`), as that chain's own events tell it; between its `delegation_started` and `delegation_ended`. */
  | { kind: 'specialist'; workflowId: string; event: RunEvent }
  /** The specialist's chain ended: its answer (`output`) went back to `agent`, or it failed (`error`). */
  | {
      kind: 'delegation_ended';
      agent: string;
      to: string;
      workflowId: string;
      outcome: DelegationOutcome;
      output?: unknown;
      error?: string;
    }
  | { kind: 'continued_as_new'; nextRunId: string }
  | { kind: 'completed'; result: HandoffRunResult<unknown> }
  | { kind: 'failed'; error: Error }
  | { kind: 'ended'; status: 'cancelled' | 'terminated' | 'timed_out' };
