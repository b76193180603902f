/**
 * What the drill checks in each chain's history and in the workers' reports: handoffs recorded
 * twice, workflow tasks that failed, and how long chains took to recover from each fault.
 */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { recordedHandoff } from '../src/audit/history';
import type { Attempt, Kill } from './workers';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** A workflow task event, with when it happened and which worker it concerned. */
export interface TaskEvent {
  type: 'scheduled' | 'started' | 'completed' | 'failed' | 'timed_out';
  at: number;
  identity?: string;
}

/** What one chain's history shows. */
export interface HistoryFindings {
  workflowId: string;
  /** `batonHandoff` memo upserts (or `recordHandoff` activities of older histories). */
  handoffRecords: number[];
  /** `WorkflowTaskFailed` events: a task the worker could not complete (the cause of a stuck chain). */
  taskFailures: { eventId: number; at: number; identity?: string; message: string }[];
  tasks: TaskEvent[];
  /**
   * Workflow tasks a worker started and did not complete within the task's timeout (not a sticky
   * queue's schedule-to-start): when each was started and when it timed out.
   */
  taskTimeouts: { started: number; timedOut: number }[];
  /** Events in the history. */
  events: number;
  /** Activities scheduled (model calls, tool calls, the team snapshot, …). */
  activities: number;
}

const TASK_EVENTS: [keyof HistoryEvent, TaskEvent['type']][] = [
  ['workflowTaskScheduledEventAttributes', 'scheduled'],
  ['workflowTaskStartedEventAttributes', 'started'],
  ['workflowTaskCompletedEventAttributes', 'completed'],
  ['workflowTaskFailedEventAttributes', 'failed'],
  ['workflowTaskTimedOutEventAttributes', 'timed_out'],
];

function timeOf(e: HistoryEvent): number {
  return Number(e.eventTime?.seconds ?? 0) * 1000 + Math.floor((e.eventTime?.nanos ?? 0) / 1e6);
}

/** Read one chain's history (retrying while the server comes back). */
export async function inspectHistory(client: Client, workflowId: string): Promise<HistoryFindings> {
  let events: HistoryEvent[] = [];
  for (let tries = 0; ; tries++) {
    try {
      events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
      break;
    } catch (err) {
      if (tries >= 30) throw err;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
  const findings: HistoryFindings = {
    workflowId,
    handoffRecords: [],
    taskFailures: [],
    tasks: [],
    taskTimeouts: [],
    events: events.length,
    activities: 0,
  };
  for (const e of events) {
    if (e.activityTaskScheduledEventAttributes) findings.activities++;
    const handoff = recordedHandoff(e);
    if (handoff) findings.handoffRecords.push(handoff.index);
    for (const [attr, type] of TASK_EVENTS) {
      const a = e[attr] as { identity?: string | null } | null | undefined;
      if (a) findings.tasks.push({ type, at: timeOf(e), identity: a.identity ?? undefined });
    }
    if (
      e.workflowTaskTimedOutEventAttributes?.timeoutType ===
      temporal.api.enums.v1.TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE
    ) {
      const started = findings.tasks.filter((t) => t.type === 'started').at(-1);
      findings.taskTimeouts.push({ started: started?.at ?? timeOf(e), timedOut: timeOf(e) });
    }
    // UnhandledCommand: a completion met a signal that arrived meanwhile, and the task ran again at once with it.
    const failed = e.workflowTaskFailedEventAttributes;
    if (
      failed &&
      failed.cause !== temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND
    ) {
      findings.taskFailures.push({
        eventId: Number(e.eventId),
        at: timeOf(e),
        identity: failed.identity ?? undefined,
        message: failed.failure?.message ?? String(failed.cause),
      });
    }
  }
  return findings;
}

/** Handoff records beyond one per handoff: a repeated index, or more records than the chain's handoffs. */
export function duplicateHandoffs(f: HistoryFindings, handoffsInResult: number | undefined): number {
  const unique = new Set(f.handoffRecords).size;
  const repeated = f.handoffRecords.length - unique;
  return repeated + (handoffsInResult === undefined ? 0 : Math.max(0, unique - handoffsInResult));
}

/**
 * Time from a kill until the killed worker's calls started again elsewhere (their restart)
 * and until the workflows it held in its cache, or a workflow task it was running, were picked up
 * by another worker, whichever is later. Undefined when the worker held nothing any chain waited on.
 * A chain taken over by a worker that a later kill hit while it held the chain (before it took the
 * chain, when the server handed a task to a poll it had not yet dropped, or after) counts as
 * recovered when that worker took it: the wait after is the later kill's, counted there (`kills`:
 * every kill of the drill).
 */
export function recoveryAfterKill(
  kill: Kill,
  starts: Attempt[],
  histories: HistoryFindings[],
  kills: Kill[] = [kill],
): number | undefined {
  const waits: number[] = [];
  const later = kills.filter((k) => k.at > kill.at);
  for (const a of kill.inFlight) {
    // The call's next attempt, or its restart after the lost worker (a new activity of the same call).
    const retried = starts.find(
      (s) =>
        s.workflowId === a.workflowId &&
        s.activity === a.activity &&
        s.tool === a.tool &&
        s.at >= kill.at &&
        (s.activityId !== a.activityId || s.attempt > a.attempt),
    );
    if (!retried) continue;
    const tasks = histories.find((h) => h.workflowId === a.workflowId)?.tasks ?? [];
    const takenBy = tasks.find(
      (t) =>
        t.type === 'started' &&
        t.at > kill.at &&
        t.at < retried.at &&
        later.some((k) => k.identity === t.identity && k.at < retried.at && taskRecovery(tasks, k) !== undefined),
    );
    waits.push((takenBy ?? retried).at - kill.at);
  }
  for (const h of histories) {
    const wait = taskRecovery(h.tasks, kill);
    if (wait !== undefined) waits.push(wait);
  }
  return waits.length > 0 ? Math.max(...waits) : undefined;
}

/**
 * For a chain whose last workflow task before the kill ran on the killed worker (so the workflow
 * was cached there, or the task was still running there), or that the server handed to the killed
 * worker after it died: the wait until another worker started a workflow task of the chain, from
 * the kill (or that hand-off) for a task the kill interrupted, which waits out the workflow task
 * timeout, else from the first task scheduled after it.
 */
function taskRecovery(tasks: TaskEvent[], kill: Kill): number | undefined {
  let lastStartedIndex = -1;
  tasks.forEach((t, i) => {
    if (t.type === 'started' && (t.at <= kill.at || t.identity === kill.identity)) lastStartedIndex = i;
  });
  const lastStarted = tasks[lastStartedIndex];
  if (lastStarted?.identity !== kill.identity) return undefined;
  // Interrupted: the task timed out rather than ended (a completion the worker sent just before it
  // died is recorded after the drill's clock read the kill, so the times alone cannot tell).
  const end = tasks.slice(lastStartedIndex + 1).find((t) => t.type !== 'scheduled' && t.type !== 'started');
  const interrupted = end?.type === 'timed_out';
  const scheduledIndex = tasks.findIndex((t, i) => t.type === 'scheduled' && i > lastStartedIndex);
  const scheduled = tasks[scheduledIndex];
  if (!scheduled) return undefined;
  const pickedUp = tasks.slice(scheduledIndex).find((t) => t.type === 'started' && t.identity !== kill.identity);
  if (!pickedUp || pickedUp.at < kill.at) return undefined;
  return pickedUp.at - (interrupted ? Math.max(kill.at, lastStarted.at) : Math.max(kill.at, scheduled.at));
}

/** The p-th percentile (0–100) of `values`, nearest rank. */
export function percentile(values: number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
