/**
 * Reading baton's steps out of a run's history events, shared by the audit and by replay.
 */
import { defaultPayloadConverter } from '@temporalio/common';
import { ActivityType, APPROVAL_EVENT_MEMO, HANDOFF_MEMO } from '../common/messages';
import type { LocalModelCall } from '../common/model';
import type { RecordHandoffInput } from '../common/run';
import { fromPayload, fromPayloads, type HistoryEvent } from '../payloads/read';

/** The activity type an `ActivityTaskScheduled` event names. */
export function activityName(e: HistoryEvent): string | undefined {
  return e.activityTaskScheduledEventAttributes?.activityType?.name ?? undefined;
}

/**
 * The handoff an event records: a `batonHandoff` memo upsert, or, in histories from before the
 * `handoff-record-in-memo` patch, the scheduling of a `recordHandoff` activity.
 */
export function recordedHandoff(e: HistoryEvent): RecordHandoffInput | undefined {
  const memo = e.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields?.[HANDOFF_MEMO];
  if (memo) return fromPayload<RecordHandoffInput>(memo);
  if (activityName(e) === ActivityType.RECORD_HANDOFF) return fromPayloads<RecordHandoffInput>(e.activityTaskScheduledEventAttributes?.input);
  return undefined;
}

/**
 * The step that broke the run: a model or tool call scheduled after the last answered model call
 * that never completed (it failed, timed out, or the run ended first). `undefined` when every call
 * completed (a limit hit, a termination while waiting).
 */
export function brokenStep(events: HistoryEvent[]): HistoryEvent | undefined {
  const completed = new Set(events.flatMap((e) => (e.activityTaskCompletedEventAttributes ? [String(e.activityTaskCompletedEventAttributes.scheduledEventId)] : [])));
  const calls = events.filter((e) => activityName(e) === ActivityType.CALL_MODEL || activityName(e) === ActivityType.RUN_TOOL);
  const lastAnswered = calls.filter((e) => activityName(e) === ActivityType.CALL_MODEL && completed.has(String(e.eventId))).at(-1);
  return calls.find((e) => !completed.has(String(e.eventId)) && Number(e.eventId) > Number(lastAnswered?.eventId ?? 0));
}

/**
 * The approval or override event a memo upsert records (`approval_requested`, `approval_decided`,
 * `decision_refused`, `overrides_applied`, `overrides_refused`).
 */
export function recordedApprovalEvent(e: HistoryEvent): ({ type: string } & Record<string, unknown>) | undefined {
  const memo = e.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields?.[APPROVAL_EVENT_MEMO];
  return memo ? fromPayload<{ type: string } & Record<string, unknown>>(memo) : undefined;
}

/** The marker a local activity leaves in history. */
const LOCAL_ACTIVITY_MARKER = 'core_local_activity';

/**
 * `events` with each local activity's marker read as the activity events a remote call records:
 * scheduled (with its input), started (with its attempt), then completed or failed, all at the
 * marker's place in history. A local model call (`callModelLocal`) reads as `callModel`, its input
 * taken from its answer; one that failed left no input, so it reads as nothing and the run's
 * failure tells of it. Readers of history (the audit, replay, run events) see one shape either way.
 */
export function withLocalActivities(events: HistoryEvent[]): HistoryEvent[] {
  if (!events.some(isLocalActivity)) return events;
  return events.flatMap((e) => (isLocalActivity(e) ? asActivity(e) : [e]));
}

function isLocalActivity(e: HistoryEvent): boolean {
  return e.markerRecordedEventAttributes?.markerName === LOCAL_ACTIVITY_MARKER;
}

function asActivity(e: HistoryEvent): HistoryEvent[] {
  const m = e.markerRecordedEventAttributes!;
  const data = fromPayloads<{ activity_type?: string; attempt?: number }>(m.details?.data ?? undefined);
  const result = fromPayloads<unknown>(m.details?.result ?? undefined);
  let name = data?.activity_type ?? '';
  let input: unknown;
  let output = result;
  if (name === ActivityType.CALL_MODEL_LOCAL) {
    const call = result as LocalModelCall | undefined;
    if (!call) return [];
    [name, input, output] = [ActivityType.CALL_MODEL, call.input, call.response];
  }
  const at = { eventId: e.eventId, eventTime: e.eventTime };
  const payloads = (value: unknown) => ({ payloads: [defaultPayloadConverter.toPayload(value)] });
  return [
    { ...at, activityTaskScheduledEventAttributes: { activityType: { name }, ...(input !== undefined ? { input: payloads(input) } : {}) } },
    { ...at, activityTaskStartedEventAttributes: { scheduledEventId: e.eventId, attempt: data?.attempt ?? 1 } },
    m.failure
      ? { ...at, activityTaskFailedEventAttributes: { scheduledEventId: e.eventId, failure: m.failure } }
      : { ...at, activityTaskCompletedEventAttributes: { scheduledEventId: e.eventId, ...(output !== undefined ? { result: payloads(output) } : {}) } },
  ];
}
