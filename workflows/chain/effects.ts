/**
 * The effects port: every Temporal command the chain issues (activities, memo, search attributes,
 * timers, `patched()`) goes through {@link ChainEffects}, so the loop runs on fake effects in unit
 * tests and on {@link temporalEffects} in a workflow.
 */
import { ActivityFailure, ApplicationFailure, CancelledFailure, ChildWorkflowFailure, TerminatedFailure, TimeoutFailure } from '@temporalio/common';
import {
  CancellationScope,
  condition,
  executeChild,
  getExternalWorkflowHandle,
  isCancellation,
  ParentClosePolicy,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  sleep,
  upsertMemo,
  upsertSearchAttributes,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { BatonActivities } from '../../activities';
import type { CheckGuardrailInput, GuardrailVerdict } from '../../src/common/controls';

/** The shape of the `handoffRun` workflow, for starting specialists as children. */
type HandoffRunWorkflow = (input: HandoffRunInput) => Promise<HandoffRunResult<unknown>>;
import { ModelCallFailedError, TeamMismatchError, ToolExecutionError } from '../../src/common/errors';
import { BATON_ERROR_TYPES, NON_RETRYABLE_ERROR_TYPES } from '../../src/common/errorTypes';
import {
  BatonAgent,
  BatonHandoffs,
  BatonStatusAttribute,
  type ChildApprovals,
  childApprovalsSignal,
  forwardDecisionSignal,
  type ForwardedDecision,
  type ForwardedOutcome,
  forwardedOutcomeSignal,
  HANDOFF_MEMO,
  PARENT_MEMO,
  Patches,
  WorkflowType,
} from '../../src/common/messages';
import type { CallModelInput, ModelResponse, StreamTag, RouteSpecialistInput, RouteSpecialistResult, SummarizeInput, SummarizeResult } from '../../src/common/model';
import { lostWorkerBudget, modelActivityOptions, toolActivityOptions } from '../../src/common/callOptions';
import { priorityOption } from '../../src/common/priority';
import type { ResolvedRunOptions } from '../../src/common/options';
import { BatonStatus, type HandoffRunInput, type HandoffRunResult, type RecordHandoffInput } from '../../src/common/run';
import type { CheckHandoffInput, CheckHandoffResult, RunToolInput, RunToolResult, TeamSpec } from '../../src/common/team';
import { restartSummary, withLostWorkerRestarts } from './lostWorkers';
import type { TeamNeed } from '../../src/common/version';
import type { SpecialistFigures, SpecialistFiguresInput } from '../../src/common/routing';

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
  /** Put a handoff on the record and run the `agent_handoff` hooks. */
  recordHandoff(entry: RecordHandoffInput, team: TeamSpec): Promise<void>;
  /** Tell the chain `parentWorkflowId` which approvals wait in this one and its specialists. */
  reportPending(parentWorkflowId: string, report: ChildApprovals): void;
  /** Send a decision to the specialist chain `workflowId` it is for; rejects when that chain cannot take signals (it ended). */
  forwardDecision(workflowId: string, forwarded: ForwardedDecision): Promise<void>;
  /** Tell the chain `workflowId` that forwarded a decision how it ended here. */
  answerForward(workflowId: string, outcome: ForwardedOutcome): void;
  /** Run a specialist as a child chain and wait for it: its result, or why it did not give one. */
  delegate(start: DelegationStart): Promise<DelegationOutcome>;
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
  /** Whether the run should hand over to a fresh one now: Temporal suggests it, or history has `afterEvents` events (0: never). */
  shouldContinueAsNew(afterEvents: number): boolean;
  /** Temporal's `patched(id)`: whether this run takes the code path the patch `id` guards (one of `Patches`). */
  patched(id: string): boolean;
  /** Where the chain's model calls send their text as it forms, when it streams (see `workflows/streams`). */
  streamTag?(): StreamTag | undefined;
}

/**
 * The effects of a `handoffRun` workflow. `v2` is the {@link Patches.RUN_V2} decision, made once
 * when the run starts.
 */
export function temporalEffects(v2: boolean): ChainEffects {
  let status: BatonStatus = BatonStatus.RUNNING;
  return {
    workflowId: workflowInfo().workflowId,
    now: () => Date.now(),
    newId: () => uuid4(),
    loadTeam(local, need) {
      const args: [TeamNeed?] = need ? [need] : [];
      // A refusal for another team is the workflow's to retry elsewhere, not this call's.
      const retry = { maximumAttempts: 5, nonRetryableErrorTypes: [...NON_RETRYABLE_ERROR_TYPES] };
      const { loadTeam } = local
        ? proxyLocalActivities<BatonActivities>({ startToCloseTimeout: '30 seconds', retry, summary: 'team snapshot' })
        : proxyActivities<BatonActivities>({ startToCloseTimeout: '30 seconds', retry, summary: 'team snapshot', ...afterRefusal(need) });
      return loadTeam(...args).catch((err: unknown) => Promise.reject(activityError(err, () => err as Error)));
    },
    startRun(agent) {
      upsertSearchAttributes([
        { key: BatonAgent, value: agent },
        { key: BatonStatusAttribute, value: BatonStatus.RUNNING },
        { key: BatonHandoffs, value: 0 },
      ]);
    },
    async callModel(input, options, local) {
      try {
        if (local) {
          const { heartbeatTimeout: _none, ...activity } = modelActivityOptions(options, NON_RETRYABLE_ERROR_TYPES);
          const { callModelLocal } = proxyLocalActivities<BatonActivities>({ ...activity, summary: input.agentId });
          return (await callModelLocal(input)).response;
        }
        return await withLostWorkerRestarts(lostWorkerBudget(options), `model call of ${input.agentId}`, (endOnLostWorker, lostWorker) => {
          const { callModel } = proxyActivities<BatonActivities>({ ...modelActivityOptions(options, NON_RETRYABLE_ERROR_TYPES, endOnLostWorker), summary: restartSummary(input.agentId, lostWorker), ...afterRefusal(input.team) });
          return callModel(lostWorker ? { ...input, lostWorker } : input);
        });
      } catch (err) {
        throw activityError(err, (reason) => new ModelCallFailedError(input.agentId, reason));
      }
    },
    async summarize(input, options) {
      try {
        return await withLostWorkerRestarts(lostWorkerBudget(options), `summary by ${input.agentId}`, (endOnLostWorker, lostWorker) => {
          const { summarizeHandoff } = proxyActivities<BatonActivities>({ ...modelActivityOptions(options, NON_RETRYABLE_ERROR_TYPES, endOnLostWorker), summary: restartSummary(`${input.agentId}: summary`, lostWorker), ...afterRefusal(input.team) });
          return summarizeHandoff(lostWorker ? { ...input, lostWorker } : input);
        });
      } catch (err) {
        throw activityError(err, (reason) => new ModelCallFailedError(input.agentId, reason));
      }
    },
    async checkHandoff(input, options) {
      const { checkHandoff } = proxyActivities<BatonActivities>({ ...toolActivityOptions(options, NON_RETRYABLE_ERROR_TYPES), summary: `${input.from} → ${input.to}: check`, ...afterRefusal(input.team) });
      try {
        return await checkHandoff(input);
      } catch (err) {
        throw activityError(err, (reason) => new ToolExecutionError(input.from, 'onHandoff', reason));
      }
    },
    async runTool(input, options) {
      try {
        return await withLostWorkerRestarts(lostWorkerBudget(options), `tool call ${input.call.name} of ${input.agentId}`, (endOnLostWorker, lostWorker) => {
          const { runTool } = proxyActivities<BatonActivities>({ ...toolActivityOptions(options, NON_RETRYABLE_ERROR_TYPES, endOnLostWorker), summary: restartSummary(`${input.agentId}: tool`, lostWorker), ...afterRefusal(input.team) });
          return runTool(lostWorker ? { ...input, lostWorker } : input);
        });
      } catch (err) {
        throw activityError(err, (reason) => new ToolExecutionError(input.agentId, input.call.name, reason));
      }
    },
    async checkGuardrail(input, options) {
      const { checkGuardrail } = proxyActivities<BatonActivities>({ ...toolActivityOptions(options, NON_RETRYABLE_ERROR_TYPES), summary: `${input.agentId}: guardrail ${input.guardrail}`, ...afterRefusal(input.team) });
      try {
        return await checkGuardrail(input);
      } catch (err) {
        throw activityError(err, (reason) => new ToolExecutionError(input.agentId, `guardrail ${input.guardrail}`, reason));
      }
    },
    async recordHandoff(entry, team) {
      const activities = proxyActivities<BatonActivities>({
        startToCloseTimeout: '1 minute',
        retry: { maximumAttempts: 3 },
        summary: `${entry.handoff.from} → ${entry.handoff.to}`,
      });
      let hooks: ((input: RecordHandoffInput) => Promise<void>) | undefined = activities.recordHandoff;
      if (v2 || patched(Patches.HANDOFF_RECORD_IN_MEMO)) {
        // The memo upsert is the history record; an activity only when there are hooks to run.
        upsertMemo({ [HANDOFF_MEMO]: entry });
        hooks = team.hasHandoffListeners ? activities.runHandoffHooks : undefined;
      }
      try {
        await hooks?.(entry);
      } catch (err) {
        // Hooks observe the chain; a hook that keeps failing must not stop it.
        log.warn('agent_handoff hook failed', { error: String(err), handoff: entry.handoff });
      }
    },
    publish: (memo) => upsertMemo(memo),
    reportPending(parentWorkflowId, report) {
      // The parent may have ended meanwhile; a report it cannot take is of no use to anyone.
      getExternalWorkflowHandle(parentWorkflowId).signal(childApprovalsSignal, report).catch(() => undefined);
    },
    forwardDecision(workflowId, forwarded) {
      return getExternalWorkflowHandle(workflowId).signal(forwardDecisionSignal, forwarded);
    },
    answerForward(workflowId, outcome) {
      // The caller may have ended meanwhile; nobody waits for the answer then.
      getExternalWorkflowHandle(workflowId).signal(forwardedOutcomeSignal, outcome).catch(() => undefined);
    },
    async delegate(start) {
      try {
        const result = await executeChild<HandoffRunWorkflow>(WorkflowType.HANDOFF_RUN, {
          workflowId: start.workflowId,
          args: [start.input],
          // The link without its token: visibility shows the memo to anyone who lists workflows.
          memo: { [PARENT_MEMO]: start.input.parent ? withoutToken(start.input.parent) : undefined },
          parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
          ...(start.timeoutMs !== undefined ? { workflowExecutionTimeout: start.timeoutMs } : {}),
          ...priorityOption(start.input.options?.priority),
        });
        return { ok: true, result };
      } catch (err) {
        if (isCancellation(err) && !(err instanceof ChildWorkflowFailure)) throw err;
        const cause = err instanceof ChildWorkflowFailure ? err.cause : undefined;
        const mismatch = cause instanceof ApplicationFailure && cause.type === TeamMismatchError.name ? (cause.details?.[0] as Record<string, unknown> | undefined) : undefined;
        return { ok: false, reason: childFailureReason(err), ...(mismatch ? { mismatch } : {}) };
      }
    },
    async routeSpecialist(input, options) {
      try {
        return await withLostWorkerRestarts(lostWorkerBudget(options), `routing by ${input.agentId}`, (endOnLostWorker, lostWorker) => {
          const { routeSpecialist } = proxyActivities<BatonActivities>({ ...modelActivityOptions(options, NON_RETRYABLE_ERROR_TYPES, endOnLostWorker), summary: restartSummary(`${input.agentId}: routing`, lostWorker), ...afterRefusal(input.team) });
          return routeSpecialist(lostWorker ? { ...input, lostWorker } : input);
        });
      } catch (err) {
        throw activityError(err, (reason) => new ModelCallFailedError(input.agentId, reason));
      }
    },
    setAgent(agent, handoffs) {
      upsertSearchAttributes([
        { key: BatonAgent, value: agent },
        { key: BatonHandoffs, value: handoffs },
      ]);
    },
    setStatus(next) {
      status = next;
      upsertSearchAttributes([{ key: BatonStatusAttribute, value: next }]);
    },
    get status() {
      return status;
    },
    condition: (ready) => condition(ready),
    timer(ms) {
      const scope = new CancellationScope();
      let fired = false;
      void scope
        .run(() => sleep(ms))
        .then(
          () => (fired = true),
          (err: unknown) => {
            if (!isCancellation(err)) throw err;
          },
        );
      return {
        get fired() {
          return fired;
        },
        cancel: () => {
          if (!fired) scope.cancel();
        },
      };
    },
    shouldContinueAsNew(afterEvents) {
      const info = workflowInfo();
      return info.continueAsNewSuggested || (afterEvents > 0 && info.historyLength >= afterEvents);
    },
    patched: (id) => patched(id),
  };
}

/** A specialist to run as a child chain. */
export interface DelegationStart {
  workflowId: string;
  input: HandoffRunInput;
  timeoutMs?: number;
}

/** How a specialist ended: its result, or why there is none (failed, timed out, cancelled). */
export type DelegationOutcome = { ok: true; result: HandoffRunResult<unknown> } | { ok: false; reason: string; mismatch?: Record<string, unknown> };

function withoutToken<T extends { token?: string }>(link: T): Omit<T, 'token'> {
  const { token: _token, ...rest } = link;
  return rest;
}

/** Why a child chain gave no result, in words for the model and the audit. */
function childFailureReason(err: unknown): string {
  const cause = err instanceof ChildWorkflowFailure ? err.cause : err;
  if (cause instanceof TimeoutFailure) return 'it timed out';
  if (cause instanceof CancelledFailure) return 'it was cancelled';
  if (cause instanceof TerminatedFailure) return 'it was terminated';
  if (cause instanceof ApplicationFailure) return `${cause.type ?? 'Error'}: ${cause.message}`;
  return cause instanceof Error ? cause.message : String(cause);
}

/**
 * A step a worker refused for its team goes to the task queue, not eagerly back to the worker that
 * runs the workflow (which refused it): any worker that has the team may take it.
 */
function afterRefusal(need: TeamNeed | undefined): { allowEagerDispatch?: false } {
  return need?.refused ? { allowEagerDispatch: false } : {};
}

/** Keep baton's own typed failures; wrap anything else that outlived its retries. */
function activityError(err: unknown, wrap: (reason: string) => Error): unknown {
  // A cancelled run cancels its calls; that is the run's cancellation, not a failing call.
  if (!(err instanceof ActivityFailure) || isCancellation(err)) return err;
  const cause = err.cause;
  if (cause instanceof ApplicationFailure && cause.type && BATON_ERROR_TYPES.includes(cause.type)) return cause;
  if (cause instanceof TimeoutFailure) return wrap(`timed out (${cause.timeoutType})`);
  return wrap(cause?.message ?? err.message);
}
