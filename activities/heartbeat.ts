import type { Context } from '@temporalio/activity';
import type { LostWorkerRestart } from '../src/common/lostWorkers';

/**
 * The details of the last heartbeat before this attempt: the previous attempt's, or, on the first
 * attempt of a call started again after its worker was lost, those the lost attempt sent.
 */
export function previousHeartbeat(ctx: Context, lostWorker?: LostWorkerRestart): unknown {
  return ctx.info.heartbeatDetails ?? lostWorker?.heartbeat;
}

/**
 * Run `work` while heartbeating on a timer, so Temporal notices a dead worker within the run's
 * `heartbeatTimeout` and the call starts again elsewhere, instead of waiting out the call's whole
 * timeout. Heartbeats also deliver cancellation to the activity. `work` gets a `heartbeat` of its
 * own (a streaming model calls it per chunk); the timer repeats the latest details it was given,
 * starting from the previous attempt's (see {@link previousHeartbeat}). The first goes out after one
 * interval, not at the start: the heartbeat timeout runs from the call's start, so a heartbeat then
 * detects nothing sooner, and it made every call wait a round trip to the server before completing.
 */
export async function whileHeartbeating<T>(ctx: Context, work: (heartbeat: (details?: unknown) => void) => Promise<T> | T, lostWorker?: LostWorkerRestart): Promise<T> {
  let latest: unknown = previousHeartbeat(ctx, lostWorker);
  const heartbeat = (details?: unknown) => {
    if (details !== undefined) latest = details;
    ctx.heartbeat(latest);
  };
  // A local activity cannot heartbeat: it lives inside the workflow task that started it.
  if (ctx.info.isLocal) return work(() => undefined);
  const timeoutMs = ctx.info.heartbeatTimeoutMs;
  if (!timeoutMs) return work(heartbeat);
  // Temporal throttles heartbeats to a fraction of the timeout anyway; a few per timeout is plenty.
  const ticker = setInterval(() => heartbeat(), Math.max(100, Math.min(timeoutMs / 3, 5_000)));
  try {
    return await work(heartbeat);
  } finally {
    clearInterval(ticker);
  }
}
