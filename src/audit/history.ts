/**
 * Reading baton's steps out of a run's history events, shared by the audit and by replay.
 */
import { ActivityType, APPROVAL_EVENT_MEMO, HANDOFF_MEMO } from '../common/messages';
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
