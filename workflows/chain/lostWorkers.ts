/**
 * Model and tool calls whose worker was lost start again, so that crashed, killed or frozen workers
 * do not use up a call's retry budget (`lostWorkerRetries`). While restarts are left, a call is
 * scheduled with heartbeat timeouts not retryable: an attempt whose heartbeats stop ends that start
 * of the call with a `TimeoutFailure` (HEARTBEAT), and the workflow schedules the same input again
 * (same idempotency key), with the last heartbeat details and a count of restarts. The last start
 * is scheduled with the plain retry policy, where a lost worker is an attempt like an error.
 */
import { ActivityFailure, TimeoutFailure, TimeoutType } from '@temporalio/common';
import { isCancellation, log } from '@temporalio/workflow';
import { hasPatch } from '../patches';
import type { LostWorkerRestart } from '../../src/common/lostWorkers';
import { Patches } from '../../src/common/patches';

/**
 * One start of a call: `endOnLostWorker` when a lost worker should end it (a restart is left),
 * `lostWorker` when it is a restart.
 */
export type CallStart<T> = (endOnLostWorker: boolean, lostWorker: LostWorkerRestart | undefined) => Promise<T>;

/**
 * Run `start` until it answers, starting it again each time its worker is lost, up to `budget`
 * times. `what` names the call in the worker's log.
 */
export async function withLostWorkerRestarts<T>(budget: number, what: string, start: CallStart<T>): Promise<T> {
  let lostWorker: LostWorkerRestart | undefined;
  for (;;) {
    const restarts = lostWorker?.restarts ?? 0;
    const endOnLostWorker = restarts < budget;
    try {
      return await start(endOnLostWorker, lostWorker);
    } catch (err) {
      const lost = endOnLostWorker ? lostWorkerTimeout(err) : undefined;
      // A history from before restarts existed failed here: replaying it, patched() answers false.
      if (!lost || !hasPatch(Patches.LOST_WORKER_RESTARTS)) throw err;
      const heartbeat = lost.lastHeartbeatDetails ?? lostWorker?.heartbeat;
      lostWorker = { restarts: restarts + 1, ...(heartbeat !== undefined ? { heartbeat } : {}) };
      log.warn(`${what}: its worker was lost (no heartbeat within the heartbeat timeout); starting the call again`, {
        restart: lostWorker.restarts,
        of: budget,
      });
    }
  }
}

/** The heartbeat timeout an activity failed with, when its last attempt's worker was lost. */
function lostWorkerTimeout(err: unknown): TimeoutFailure | undefined {
  if (!(err instanceof ActivityFailure) || isCancellation(err)) return undefined;
  const cause = err.cause;
  return cause instanceof TimeoutFailure && cause.timeoutType === TimeoutType.HEARTBEAT ? cause : undefined;
}

/** The activity summary of a start: the call's own, marked when it is a restart. */
export function restartSummary(summary: string, lostWorker: LostWorkerRestart | undefined): string {
  return lostWorker ? `${summary} (started again after a lost worker: ${lostWorker.restarts})` : summary;
}
