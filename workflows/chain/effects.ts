/**
 * The effects port: every Temporal command the chain issues (activities, memo, search attributes,
 * timers, `patched()`) goes through {@link ChainEffects}, so the loop runs on fake effects in unit
 * tests and on `temporalEffects` (temporalEffects.ts) in a workflow.
 */
import type { CheckGuardrailInput, GuardrailVerdict } from '../../src/common/controls';
import type {
  ChildApprovals,
  ForwardedDecision,
  ForwardedOutcome,
  SpecialistApprovalsRead,
} from '../../src/common/messages';
import type {
  CallModelInput,
  ModelResponse,
  StreamTag,
  RouteSpecialistInput,
  RouteSpecialistResult,
  SummarizeInput,
  SummarizeResult,
} from '../../src/common/model';
import type { ResolvedRunOptions } from '../../src/common/options';
import type { BatonStatus, HandoffRunInput, HandoffRunResult, RecordHandoffInput } from '../../src/common/run';
import type { SpecialistFigures, SpecialistFiguresInput } from '../../src/common/routing';
import type {
  CheckHandoffInput,
  CheckHandoffResult,
  RunToolInput,
  RunToolResult,
  TeamSpec,
} from '../../src/common/team';
import type { TeamNeed } from '../../src/common/version';
import type { RemoteCallInput, RemoteCallResult } from '../../src/common/remote';

/** A durable timer the chain can stop waiting for. */
export interface Timer {
  readonly fired: boolean;
  cancel(): void;
}

/** Everything the chain does to the world, and what it reads from it. */
export interface ChainEffects {
  readonly workflowId: string;
  /** Workflow time, ms. */
  now(): number;
  /** A new id, deterministic on replay. */
  newId(): string;
  /** The team snapshot, recorded in history as the chain's first step (a local activity when `local`); `need` asks for a given team. */
  loadTeam(local?: boolean, need?: TeamNeed): Promise<TeamSpec>;
  /** The search attributes of a chain that starts at `agent`. */
  startRun(agent: string): void;
  /** One model turn (a local activity when `local`); a call that keeps failing throws `ModelCallFailedError`. */
  callModel(input: CallModelInput, options: ResolvedRunOptions, local?: boolean): Promise<ModelResponse>;
  /** A summary of a conversation a handoff carries (the `summarizeHandoff` activity). */
  summarize(input: SummarizeInput, options: ResolvedRunOptions): Promise<SummarizeResult>;
  /** The worker's `onHandoff` check of a handoff (the `checkHandoff` activity). */
  checkHandoff(input: CheckHandoffInput, options: ResolvedRunOptions): Promise<CheckHandoffResult>;
  /** One tool call; a call that keeps failing throws `ToolExecutionError`. */
  runTool(input: RunToolInput, options: ResolvedRunOptions): Promise<RunToolResult>;
  /** A custom guardrail's verdict (the `checkGuardrail` activity). */
  checkGuardrail(input: CheckGuardrailInput, options: ResolvedRunOptions): Promise<GuardrailVerdict>;
  /** Put a handoff on the record and run the `agent_handoff` hooks; a promise only while hooks run. */
  recordHandoff(entry: RecordHandoffInput, team: TeamSpec): Promise<void> | void;
  /** Tell the chain `parentWorkflowId` which approvals wait in this one and its specialists. */
  reportPending(parentWorkflowId: string, report: ChildApprovals): void;
  /** What waits in the specialist `workflowId` this chain started, read from it (the `readSpecialistApprovals` activity). */
  readSpecialistApprovals(workflowId: string): Promise<SpecialistApprovalsRead>;
  /** Send a decision to the specialist chain `workflowId` it is for; rejects when that chain cannot take signals (it ended). */
  forwardDecision(workflowId: string, forwarded: ForwardedDecision): Promise<void>;
  /** Tell the chain `workflowId` that forwarded a decision how it ended here. */
  answerForward(workflowId: string, outcome: ForwardedOutcome): void;
  /** Run a specialist as a child chain and wait for it: its result, or why it did not give one. */
  delegate(start: DelegationStart): Promise<DelegationOutcome>;
  /**
   * One call of a remote agent over A2A (the `callRemoteAgent` activity): its answer, or a change of
   * its wait; a call that keeps failing, or that the remote refuses, throws `RemoteAgentError`.
   * `timeoutMs`: what is left of the delegation's `timeout`. Absent where no workflow gives it.
   */
  callRemoteAgent?(input: RemoteCallInput, options: ResolvedRunOptions, timeoutMs?: number): Promise<RemoteCallResult>;
  /** Pick a specialist with a model when no profile matched (the `routeSpecialist` activity). */
  routeSpecialist(input: RouteSpecialistInput, options: ResolvedRunOptions): Promise<RouteSpecialistResult>;
  /** The figures a routing strategy reads (the `specialistFigures` activity, `withSpecialistFigures`); absent where no workflow gives them. */
  specialistFigures?(input: SpecialistFiguresInput, options: ResolvedRunOptions): Promise<SpecialistFigures>;
  /** Publish memo fields (each upsert is an event in history). */
  publish(memo: Record<string, unknown>): void;
  /** The `BatonAgent` and `BatonHandoffs` search attributes. */
  setAgent(agent: string, handoffs: number): void;
  /** The run's status: the `status` query and the `BatonStatus` search attribute. */
  setStatus(status: BatonStatus): void;
  readonly status: BatonStatus;
  /** Resolve once `ready()` holds. */
  condition(ready: () => boolean): Promise<void>;
  /** Start a durable timer of `ms`. */
  timer(ms: number): Timer;
  /**
   * Whether the run should hand over to a fresh one now: Temporal suggests it, or history has
   * `afterEvents` events (0: never), or (with `beforeLimits`, the `baton-inbox-bounds` patch) the
   * run nears Temporal's limits of history and updates (`workflows/historyLimits.ts`).
   */
  shouldContinueAsNew(afterEvents: number, beforeLimits?: boolean): boolean;
  /** The events in this run's history so far (Temporal's `historyLength`, the same on replay). */
  historyLength(): number;
  /** Temporal's `patched(id)`: whether this run takes the code path the patch `id` guards (one of `Patches`). */
  patched(id: string): boolean;
  /** Where the chain's model calls send their text as it forms, when it streams (see `workflows/streams`). */
  streamTag?(): StreamTag | undefined;
}

/** A specialist to run as a child chain. */
export interface DelegationStart {
  workflowId: string;
  input: HandoffRunInput;
  timeoutMs?: number;
}

/** How a specialist ended: its result, or why there is none (failed, timed out, cancelled). */
export type DelegationOutcome =
  { ok: true; result: HandoffRunResult<unknown> } | { ok: false; reason: string; mismatch?: Record<string, unknown> };

/**
 * The promise `start` returns, or a rejected one when `start` throws before returning it: callers
 * that chain on an effect's promise handle both alike. (Promise chains rather than async functions
 * on a chain's hot path: the SDK captures a stack for every promise workflow code makes.)
 */
export function started<T>(start: () => Promise<T>): Promise<T> {
  try {
    return start();
  } catch (err) {
    return Promise.reject(err);
  }
}
