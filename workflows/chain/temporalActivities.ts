/**
 * The chain's effects that call activities in a workflow: the team snapshot, model and tool calls,
 * checks, summaries, routing and remote agents, each with its retries and lost-worker restarts, and
 * baton's typed errors for calls that kept failing.
 */
import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/common';
import { isCancellation, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { BatonActivities } from '../../activities';
import {
  lostWorkerBudget,
  modelActivityOptions,
  remoteActivityOptions,
  toolActivityOptions,
} from '../../src/common/callOptions';
import { ModelCallFailedError, RemoteAgentError, ToolExecutionError } from '../../src/common/errors';
import { BATON_ERROR_TYPES, NON_RETRYABLE_ERROR_TYPES } from '../../src/common/errorTypes';
import type { TeamNeed } from '../../src/common/version';
import type { ChainEffects } from './effects';
import { restartSummary, withLostWorkerRestarts } from './lostWorkers';

/** The {@link ChainEffects} that call baton's activities. */
export type ActivityEffects = Pick<
  ChainEffects,
  | 'loadTeam'
  | 'callModel'
  | 'summarize'
  | 'checkHandoff'
  | 'runTool'
  | 'checkGuardrail'
  | 'readSpecialistApprovals'
  | 'callRemoteAgent'
  | 'routeSpecialist'
>;

/** The effects of a `handoffRun` workflow that call activities (`temporalEffects` adds the rest). */
export function activityEffects(): ActivityEffects {
  return {
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
    readSpecialistApprovals(workflowId) {
      const { readSpecialistApprovals } = proxyActivities<BatonActivities>({
        startToCloseTimeout: '30 seconds',
        retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 10 },
        summary: `read ${workflowId}`,
      });
      return readSpecialistApprovals({ workflowId });
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
  };
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
