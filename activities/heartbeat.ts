import type { Context } from '@temporalio/activity';

/**
 * Run `work` while heartbeating on a timer, so Temporal notices a dead worker within the run's
 * `heartbeatTimeout` and retries the call elsewhere, instead of waiting out the call's whole
 * timeout. Heartbeats also deliver cancellation to the activity. `work` gets a `heartbeat` of its
 * own (a streaming model calls it per chunk); the timer repeats the latest details it was given.
 */
export async function whileHeartbeating<T>(ctx: Context, work: (heartbeat: (details?: unknown) => void) => Promise<T> | T): Promise<T> {
  let latest: unknown = ctx.info.heartbeatDetails;
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
    heartbeat();
    return await work(heartbeat);
  } finally {
    clearInterval(ticker);
  }
}
