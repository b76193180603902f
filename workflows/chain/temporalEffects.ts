/**
 * The chain's effects in a workflow: each {@link ChainEffects} command as Temporal's (activities
 * and local activities with their retries and lost-worker restarts, child chains, signals to other
 * chains, memo and search attribute upserts, durable timers, `patched()`), and baton's typed errors
 * for calls that kept failing.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancelledFailure,
  ChildWorkflowFailure,
  TerminatedFailure,
  TimeoutFailure,
} from '@temporalio/common';
import {
  CancellationScope,
  condition,
  executeChild,
  getExternalWorkflowHandle,
  isCancellation,
  ParentClosePolicy,
  log,
  proxyActivities,
  proxyLocalActivities,
  sleep,
  upsertMemo,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import { hasPatch } from '../patches';
import { upsertAttributes } from '../searchAttributes';
import { nearHistoryLimits } from '../historyLimits';
import type { BatonActivities } from '../../activities';
import {
  lostWorkerBudget,
  modelActivityOptions,
  remoteActivityOptions,
  toolActivityOptions,
} from '../../src/common/callOptions';
import { ModelCallFailedError, RemoteAgentError, TeamMismatchError, ToolExecutionError } from '../../src/common/errors';
import { BATON_ERROR_TYPES, NON_RETRYABLE_ERROR_TYPES } from '../../src/common/errorTypes';
import {
  BatonAgent,
  BatonHandoffs,
  BatonStatusAttribute,
  childApprovalsSignal,
  forwardDecisionSignal,
  forwardedOutcomeSignal,
  HANDOFF_MEMO,
  PARENT_MEMO,
  WorkflowType,
} from '../../src/common/messages';
import { Patches } from '../../src/common/patches';
import { priorityOption } from '../../src/common/priority';
import {
  BatonStatus,
  type HandoffRunInput,
  type HandoffRunResult,
  type RecordHandoffInput,
} from '../../src/common/run';
import type { TeamNeed } from '../../src/common/version';
import type { ChainEffects } from './effects';
import { restartSummary, withLostWorkerRestarts } from './lostWorkers';

/** The shape of the `handoffRun` workflow, for starting specialists as children. */
type HandoffRunWorkflow = (input: HandoffRunInput) => Promise<HandoffRunResult<unknown>>;

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
        : proxyActivities<BatonActivities>({
            startToCloseTimeout: '30 seconds',
            retry,
            summary: 'team snapshot',
            ...afterRefusal(need),
          });
      return loadTeam(...args).catch((err: unknown) => Promise.reject(activityError(err, () => err as Error)));
    },
    startRun(agent) {
      upsertAttributes([
        { key: BatonAgent, value: agent },
        { key: BatonStatusAttribute, value: BatonStatus.RUNNING },
        { key: BatonHandoffs, value: 0 },
      ]);
    },
    callModel(input, options, local) {
      // Promises, not async functions: the SDK captures a stack for every promise workflow code makes.
      const failed = (err: unknown) =>
        Promise.reject(activityError(err, (reason) => new ModelCallFailedError(input.agentId, reason)));
      try {
        if (local) {
          const { heartbeatTimeout: _none, ...activity } = modelActivityOptions(options, NON_RETRYABLE_ERROR_TYPES);
          const { callModelLocal } = proxyLocalActivities<BatonActivities>({ ...activity, summary: input.agentId });
          return callModelLocal(input).then((result) => result.response, failed);
        }
        return withLostWorkerRestarts(
          lostWorkerBudget(options),
          `model call of ${input.agentId}`,
          (endOnLostWorker, lostWorker) => {
            const { callModel } = proxyActivities<BatonActivities>({
              ...modelActivityOptions(options, NON_RETRYABLE_ERROR_TYPES, endOnLostWorker),
              summary: restartSummary(input.agentId, lostWorker),
              ...afterRefusal(input.team),
            });
            return callModel(lostWorker ? { ...input, lostWorker } : input);
          },
        ).catch(failed);
      } catch (err) {
        return failed(err);
      }
    },
    async summarize(input, options) {
      try {
        return await withLostWorkerRestarts(
          lostWorkerBudget(options),
          `summary by ${input.agentId}`,
          (endOnLostWorker, lostWorker) => {
            const { summarizeHandoff } = proxyActivities<BatonActivities>({
              ...modelActivityOptions(options, NON_RETRYABLE_ERROR_TYPES, endOnLostWorker),
              summary: restartSummary(`${input.agentId}: summary`, lostWorker),
              ...afterRefusal(input.team),
            });
            return summarizeHandoff(lostWorker ? { ...input, lostWorker } : input);
          },
        );
      } catch (err) {
        throw activityError(err, (reason) => new ModelCallFailedError(input.agentId, reason));
      }
    },
    async checkHandoff(input, options) {
      const { checkHandoff } = proxyActivities<BatonActivities>({
        ...toolActivityOptions(options, NON_RETRYABLE_ERROR_TYPES),
        summary: `${input.from} → ${input.to}: check`,
        ...afterRefusal(input.team),
      });
      try {
        return await checkHandoff(input);
      } catch (err) {
        throw activityError(err, (reason) => new ToolExecutionError(input.from, 'onHandoff', reason));
      }
    },
    async runTool(input, options) {
      try {
        return await withLostWorkerRestarts(
          lostWorkerBudget(options),
          `tool call ${input.call.name} of ${input.agentId}`,
          (endOnLostWorker, lostWorker) => {
            const { runTool } = proxyActivities<BatonActivities>({
              ...toolActivityOptions(options, NON_RETRYABLE_ERROR_TYPES, endOnLostWorker),
              summary: restartSummary(`${input.agentId}: tool`, lostWorker),
              ...afterRefusal(input.team),
            });
            return runTool(lostWorker ? { ...input, lostWorker } : input);
          },
        );
      } catch (err) {
        throw activityError(err, (reason) => new ToolExecutionError(input.agentId, input.call.name, reason));
      }
    },
    async checkGuardrail(input, options) {
      const { checkGuardrail } = proxyActivities<BatonActivities>({
        ...toolActivityOptions(options, NON_RETRYABLE_ERROR_TYPES),
        summary: `${input.agentId}: guardrail ${input.guardrail}`,
        ...afterRefusal(input.team),
      });
      try {
        return await checkGuardrail(input);
      } catch (err) {
        throw activityError(
          err,
          (reason) => new ToolExecutionError(input.agentId, `guardrail ${input.guardrail}`, reason),
        );
      }
    },
    recordHandoff(entry, team) {
      const activities = proxyActivities<BatonActivities>({
        startToCloseTimeout: '1 minute',
        retry: { maximumAttempts: 3 },
        summary: `${entry.handoff.from} → ${entry.handoff.to}`,
      });
      let hooks: ((input: RecordHandoffInput) => Promise<void>) | undefined = activities.recordHandoff;
      if (v2 || hasPatch(Patches.HANDOFF_RECORD_IN_MEMO)) {
        // The memo upsert is the history record; an activity only when there are hooks to run.
        upsertMemo({ [HANDOFF_MEMO]: entry });
        hooks = team.hasHandoffListeners ? activities.runHandoffHooks : undefined;
      }
      // Hooks observe the chain; a hook that keeps failing must not stop it.
      return hooks?.(entry).catch((err: unknown) =>
        log.warn('agent_handoff hook failed', { error: String(err), handoff: entry.handoff }),
      );
    },
    publish: (memo) => upsertMemo(memo),
    reportPending(parentWorkflowId, report) {
      // The parent may have ended meanwhile; a report it cannot take is of no use to anyone.
      getExternalWorkflowHandle(parentWorkflowId)
        .signal(childApprovalsSignal, report)
        .catch(() => undefined);
    },
    readSpecialistApprovals(workflowId) {
      const { readSpecialistApprovals } = proxyActivities<BatonActivities>({
        startToCloseTimeout: '30 seconds',
        retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 10 },
        summary: `read ${workflowId}`,
      });
      return readSpecialistApprovals({ workflowId });
    },
    forwardDecision(workflowId, forwarded) {
      return getExternalWorkflowHandle(workflowId).signal(forwardDecisionSignal, forwarded);
    },
    answerForward(workflowId, outcome) {
      // The caller may have ended meanwhile; nobody waits for the answer then.
      getExternalWorkflowHandle(workflowId)
        .signal(forwardedOutcomeSignal, outcome)
        .catch(() => undefined);
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
        const mismatch =
          cause instanceof ApplicationFailure && cause.type === TeamMismatchError.name
            ? (cause.details?.[0] as Record<string, unknown> | undefined)
            : undefined;
        return { ok: false, reason: childFailureReason(err), ...(mismatch ? { mismatch } : {}) };
      }
    },
    async callRemoteAgent(input, options, timeoutMs) {
      try {
        return await withLostWorkerRestarts(
          lostWorkerBudget(options),
          `call of remote agent ${input.remote}`,
          (endOnLostWorker, lostWorker) => {
            const { callRemoteAgent } = proxyActivities<BatonActivities>({
              ...remoteActivityOptions(options, NON_RETRYABLE_ERROR_TYPES, endOnLostWorker, timeoutMs),
              summary: restartSummary(`${input.from} → ${input.remote}`, lostWorker),
              ...afterRefusal(input.team),
            });
            return callRemoteAgent(lostWorker ? { ...input, lostWorker } : input);
          },
        );
      } catch (err) {
        throw activityError(
          err,
          (reason) =>
            new RemoteAgentError({ remote: input.remote, reason, ...(input.taskId ? { taskId: input.taskId } : {}) }),
        );
      }
    },
    async routeSpecialist(input, options) {
      try {
        return await withLostWorkerRestarts(
          lostWorkerBudget(options),
          `routing by ${input.agentId}`,
          (endOnLostWorker, lostWorker) => {
            const { routeSpecialist } = proxyActivities<BatonActivities>({
              ...modelActivityOptions(options, NON_RETRYABLE_ERROR_TYPES, endOnLostWorker),
              summary: restartSummary(`${input.agentId}: routing`, lostWorker),
              ...afterRefusal(input.team),
            });
            return routeSpecialist(lostWorker ? { ...input, lostWorker } : input);
          },
        );
      } catch (err) {
        throw activityError(err, (reason) => new ModelCallFailedError(input.agentId, reason));
      }
    },
    setAgent(agent, handoffs) {
      upsertAttributes([
        { key: BatonAgent, value: agent },
        { key: BatonHandoffs, value: handoffs },
      ]);
    },
    setStatus(next) {
      status = next;
      upsertAttributes([{ key: BatonStatusAttribute, value: next }]);
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
    shouldContinueAsNew(afterEvents, beforeLimits) {
      const info = workflowInfo();
      return (
        info.continueAsNewSuggested ||
        (afterEvents > 0 && info.historyLength >= afterEvents) ||
        (beforeLimits === true && nearHistoryLimits())
      );
    },
    patched: (id) => hasPatch(id),
  };
}

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
