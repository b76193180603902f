/**
 * Activity options of a run's model and tool calls: timeouts, heartbeats, retry policy and task
 * priority from the run options, and whether a lost worker ends a start of the call (see `lostWorkerRetries`).
 *
 * Workflow-safe: no I/O.
 */
import type { ActivityOptions, Duration } from '@temporalio/common';
import { durationMs } from './check';
import { HEARTBEAT_TIMEOUT_FAILURE_TYPE } from './lostWorkers';
import { type ResolvedRunOptions, RUN_OPTIONS } from './options';
import { priorityOption } from './priority';

/**
 * Activity options of model calls for a run. With `endOnLostWorker`, an attempt whose heartbeats
 * stop is not retried: the call fails with the heartbeat timeout, for the workflow to start it again.
 */
export function modelActivityOptions(
  o: ResolvedRunOptions,
  nonRetryableErrorTypes: readonly string[],
  endOnLostWorker = false,
): ActivityOptions {
  return callActivityOptions(o, o.modelTimeout, nonRetryableErrorTypes, endOnLostWorker);
}

/**
 * The failure type of an activity whose result Temporal would not take (over the namespace's blob
 * size limit): the SDK fails the attempt, retryably (SDK 1.21 on).
 */
export const PAYLOADS_TOO_LARGE_FAILURE_TYPE = 'PayloadsTooLarge';

/**
 * Activity options of tool calls for a run; `endOnLostWorker` as for {@link modelActivityOptions}.
 * A result over Temporal's payload limit is not retried: running the tool again (its side effects
 * too) would give the same result.
 */
export function toolActivityOptions(
  o: ResolvedRunOptions,
  nonRetryableErrorTypes: readonly string[],
  endOnLostWorker = false,
): ActivityOptions {
  return callActivityOptions(
    o,
    o.toolTimeout,
    [...nonRetryableErrorTypes, PAYLOADS_TOO_LARGE_FAILURE_TYPE],
    endOnLostWorker,
  );
}

/**
 * Activity options of a call of a remote agent (`callRemoteAgent`): the run's heartbeats, retries and
 * priority, and `timeoutMs` (what is left of the delegation's `timeout`) or {@link REMOTE_CALL_TIMEOUT}
 * for the call, which may wait as long as someone at the remote agent takes to approve.
 */
export function remoteActivityOptions(
  o: ResolvedRunOptions,
  nonRetryableErrorTypes: readonly string[],
  endOnLostWorker: boolean,
  timeoutMs?: number,
): ActivityOptions {
  // A delegation's timeout bounds the call with its retries, not each attempt alone.
  return {
    ...callActivityOptions(o, timeoutMs ?? REMOTE_CALL_TIMEOUT, nonRetryableErrorTypes, endOnLostWorker),
    ...(timeoutMs !== undefined ? { scheduleToCloseTimeout: timeoutMs } : {}),
  };
}

/** How long one call of a remote agent may take when its delegation has no `timeout`. */
export const REMOTE_CALL_TIMEOUT = '7 days';

/** How many times a call may be started again after lost workers (`lostWorkerRetries`). */
export function lostWorkerBudget(o: ResolvedRunOptions): number {
  // Options of chains started before `lostWorkerRetries` existed have none.
  return o.lostWorkerRetries ?? RUN_OPTIONS.lostWorkerRetries.default;
}

function callActivityOptions(
  o: ResolvedRunOptions,
  timeout: string | number,
  nonRetryableErrorTypes: readonly string[],
  endOnLostWorker: boolean,
): ActivityOptions {
  // Options of chains started before `heartbeatTimeout` existed have none.
  const heartbeat = o.heartbeatTimeout ?? RUN_OPTIONS.heartbeatTimeout.default;
  const types = endOnLostWorker
    ? [...nonRetryableErrorTypes, HEARTBEAT_TIMEOUT_FAILURE_TYPE]
    : [...nonRetryableErrorTypes];
  return {
    startToCloseTimeout: timeout as Duration,
    // A heartbeat timeout longer than the call's own timeout would never fire.
    heartbeatTimeout: Math.min(durationMs(heartbeat) ?? 10_000, durationMs(timeout) ?? Infinity),
    retry: { ...o.retry, nonRetryableErrorTypes: types } as ActivityOptions['retry'],
    // Explicit, so a chain another client started without a workflow priority still has its calls dispatched with it.
    ...priorityOption(o.priority),
  };
}
