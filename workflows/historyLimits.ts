/**
 * When a run hands over to a fresh one before Temporal's limits, whatever arrives and however fast:
 * Temporal ends a run at 50,000 events or 50 MB of history (warning at 10,000 and 10 MB) and
 * refuses updates past 2,000 in a run. Every accepted signal and update is in history before the
 * workflow sees it, so a chain that only waits (for a decision, a message) must still continue as
 * new while there is room for what arrives meanwhile: these thresholds leave four fifths of it.
 */
import { workflowInfo } from '@temporalio/workflow';

/** The thresholds a run continues as new at (the `baton-inbox-bounds` patch). */
export const HISTORY_LIMITS = {
  /** Events in the run's history: Temporal warns at 10,000 and ends the run at 50,000. */
  events: 10_000,
  /** Bytes of the run's history: Temporal warns at 10 MB and ends the run at 50 MB. */
  bytes: 8 * 1024 * 1024,
  /** Updates the run accepted: Temporal refuses more than 2,000 in a run. */
  updates: 1000,
  /**
   * Bytes of payloads the run refused unread for their size. Temporal holds at most 2 MB of events
   * that arrive while a workflow task runs, and fails the task past that: a stream of payloads near
   * Temporal's 2 MB limit would fail every task of a run whose history it has grown (each a replay
   * of all of it). Such a run hands over at once, while its history is small enough to replay fast.
   */
  refusedBytes: 1024 * 1024,
} as const;

/**
 * Where a run counts the updates it accepted: a global of its own (the SDK gives each workflow its
 * own globals; baton's modules are shared by every workflow of a worker).
 */
const UPDATES = '__batonUpdatesAccepted';

/** Where a run counts the bytes of payloads it refused unread: a global of its own, like {@link UPDATES}. */
const REFUSED_BYTES = '__batonRefusedBytes';

/** A payload of `bytes` was refused unread, for its size. */
export function noteRefusedBytes(bytes: number): void {
  const run = globalThis as { [REFUSED_BYTES]?: number };
  run[REFUSED_BYTES] = (run[REFUSED_BYTES] ?? 0) + bytes;
}

/** An update handler of this run started: count it. */
export function noteUpdate(): void {
  const run = globalThis as { [UPDATES]?: number };
  run[UPDATES] = (run[UPDATES] ?? 0) + 1;
}

/** Whether the run's history, its updates or what it refused for size have reached {@link HISTORY_LIMITS}. */
export function nearHistoryLimits(): boolean {
  const info = workflowInfo();
  const run = globalThis as { [UPDATES]?: number; [REFUSED_BYTES]?: number };
  return (
    info.historyLength >= HISTORY_LIMITS.events ||
    info.historySize >= HISTORY_LIMITS.bytes ||
    (run[UPDATES] ?? 0) >= HISTORY_LIMITS.updates ||
    (run[REFUSED_BYTES] ?? 0) >= HISTORY_LIMITS.refusedBytes
  );
}
