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
 * The least time left between a heartbeat and the timeout it holds off: for a busy worker's late
 * timer and the trip to the server. A heartbeat that misses its timeout makes Temporal run the
 * call again on another worker, which for a tool is a second side effect: the margin is generous.
 */
export const HEARTBEAT_MARGIN_MS = 1_000;

/**
 * How often a call with `heartbeatTimeoutMs` heartbeats: as seldom as the timeout allows, with
 * {@link HEARTBEAT_MARGIN_MS} or a third of the timeout (half of it for 1.5 s or less) left for
 * the trip: every 2 s with the default 3 s. Each heartbeat that reaches the server is an action on
 * Temporal Cloud, and how soon a dead worker is noticed does not depend on it: the timeout runs
 * from the last heartbeat the server got, which a dead worker sent before it died.
 */
export function heartbeatIntervalMs(heartbeatTimeoutMs: number): number {
  // A timeout of a second or so is for fast recovery, not few actions: half of it is left for the trip.
  if (heartbeatTimeoutMs <= 1_500) return heartbeatTimeoutMs / 2;
  return Math.max(heartbeatTimeoutMs / 2, heartbeatTimeoutMs - Math.max(HEARTBEAT_MARGIN_MS, heartbeatTimeoutMs / 3));
}

/** How `work`'s own heartbeats go out (see {@link whileHeartbeating}). */
export interface HeartbeatMode {
  /**
   * Keep the details `work` heartbeats and send them with the next timed heartbeat, instead of at
   * once: for model calls, whose providers heartbeat every streamed chunk. The details of a call
   * that fails still reach the server, for the next attempt. @default false
   */
  onTimer?: boolean;
  /** Told of each heartbeat sent (the worker's `baton_temporal_actions_total`). */
  sent?: () => void;
}

/**
 * Run `work` while heartbeating on a timer, so Temporal notices a dead worker within the run's
 * `heartbeatTimeout` and the call starts again elsewhere, instead of waiting out the call's whole
 * timeout. Heartbeats also deliver cancellation to the activity. `work` gets a `heartbeat` of its
 * own; the timer repeats the latest details it was given, starting from the previous attempt's (see
 * {@link previousHeartbeat}), one {@link heartbeatIntervalMs} after the last heartbeat sent. The
 * first goes out after one interval, not at the start: the heartbeat timeout runs from the call's
 * start, so a heartbeat then detects nothing sooner, and it made every call wait a round trip to the
 * server before completing.
 */
export async function whileHeartbeating<T>(
  ctx: Context,
  work: (heartbeat: (details?: unknown) => void) => Promise<T> | T,
  lostWorker?: LostWorkerRestart,
  mode: HeartbeatMode = {},
): Promise<T> {
  // A local activity cannot heartbeat: it lives inside the workflow task that started it.
  if (ctx.info.isLocal) return work(() => undefined);
  let latest: unknown = previousHeartbeat(ctx, lostWorker);
  let sent = latest;
  const timeoutMs = ctx.info.heartbeatTimeoutMs;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const send = () => {
    sent = latest;
    ctx.heartbeat(latest);
    mode.sent?.();
    if (timeoutMs) {
      clearTimeout(timer);
      timer = setTimeout(send, heartbeatIntervalMs(timeoutMs));
    }
  };
  const heartbeat = (details?: unknown) => {
    if (details !== undefined) latest = details;
    if (!mode.onTimer || !timeoutMs) send();
  };
  if (timeoutMs) timer = setTimeout(send, heartbeatIntervalMs(timeoutMs));
  try {
    return await work(heartbeat);
  } catch (err) {
    if (mode.onTimer && latest !== sent) {
      ctx.heartbeat(latest);
      mode.sent?.();
    }
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
