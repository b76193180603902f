import type { WorkflowHandle } from '@temporalio/client';
import { recordedHandoff } from '../../src/audit/history';
import type { RecordHandoffInput } from '../../src/common/types';
import { fromPayload, fromPayloads, type HistoryEvent } from '../../src/payloads/read';

/** One activity as the workflow history shows it. */
export interface ActivityInHistory {
  eventId: number;
  name: string;
  input: unknown;
  /** Attempt of the successful or last start. */
  attempt: number;
  summary?: string;
}

/** Every activity scheduled in a workflow's history, in order, with its input and attempts. */
export async function activitiesInHistory(handle: WorkflowHandle): Promise<ActivityInHistory[]> {
  const history = await handle.fetchHistory();
  const events: HistoryEvent[] = history.events ?? [];
  const byScheduledId = new Map<string, ActivityInHistory>();
  for (const e of events) {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled) {
      const summaryPayload = e.userMetadata?.summary;
      byScheduledId.set(String(e.eventId), {
        eventId: Number(e.eventId),
        name: scheduled.activityType?.name ?? '',
        input: fromPayloads(scheduled.input),
        attempt: 0,
        summary: summaryPayload ? fromPayload<string>(summaryPayload) : undefined,
      });
    }
    const started = e.activityTaskStartedEventAttributes;
    if (started) {
      const a = byScheduledId.get(String(started.scheduledEventId));
      if (a) a.attempt = started.attempt ?? 1;
    }
  }
  return [...byScheduledId.values()];
}

/** Each handoff as history records it (the `batonHandoff` memo), with its event id. */
export async function handoffsInHistory(
  handle: WorkflowHandle,
): Promise<{ eventId: number; entry: RecordHandoffInput }[]> {
  const history = await handle.fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const entry = recordedHandoff(e);
    return entry ? [{ eventId: Number(e.eventId), entry }] : [];
  });
}

/** The names of the history's event types, in order. */
export async function eventTypes(handle: WorkflowHandle): Promise<string[]> {
  const history = await handle.fetchHistory();
  return (history.events ?? []).map((e) => String(e.eventType));
}
