/**
 * Reading baton's steps out of a run's history events, shared by the audit and by replay.
 */
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { LostWorkerRestart } from '../common/lostWorkers';
import { ActivityType, APPROVAL_EVENT_MEMO, HANDOFF_MEMO } from '../common/messages';
import type { LocalModelCall } from '../common/model';
import type { HandoffRunInput, RecordHandoffInput } from '../common/run';
import { isRecord } from '../common/check';
import { fromOutsidePayloads, fromPayload, fromPayloads, type HistoryEvent } from '../payloads/read';

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
  if (activityName(e) === ActivityType.RECORD_HANDOFF)
    return fromPayloads<RecordHandoffInput>(e.activityTaskScheduledEventAttributes?.input);
  return undefined;
}

/**
 * The step that broke the run: a model or tool call scheduled after the last answered model call
 * that never completed (it failed, timed out, or the run ended first). `undefined` when every call
 * completed (a limit hit, a termination while waiting).
 */
export function brokenStep(events: HistoryEvent[]): HistoryEvent | undefined {
  const completed = new Set(
    events.flatMap((e) =>
      e.activityTaskCompletedEventAttributes ? [String(e.activityTaskCompletedEventAttributes.scheduledEventId)] : [],
    ),
  );
  // A start a lost worker ended is not the step: the call's restart is.
  const restarted = new Set(lostWorkerRestarts(events).values());
  const calls = events.filter(
    (e) =>
      (activityName(e) === ActivityType.CALL_MODEL || activityName(e) === ActivityType.RUN_TOOL) &&
      !restarted.has(String(e.eventId)),
  );
  const lastAnswered = calls
    .filter((e) => activityName(e) === ActivityType.CALL_MODEL && completed.has(String(e.eventId)))
    .at(-1);
  return calls.find((e) => !completed.has(String(e.eventId)) && Number(e.eventId) > Number(lastAnswered?.eventId ?? 0));
}

/**
 * Calls started again after a lost worker: for each restart's `ActivityTaskScheduled` event id, the
 * id of the start it repeats (one that timed out on its heartbeats, with the same input). Readers
 * of history count a call once, however many times it started. With `refusals`, also the steps
 * scheduled again after a worker that lacks the chain's team refused them (`TeamMismatchError`):
 * a refused step never ran, and its next scheduling is the same call.
 */
export function lostWorkerRestarts(events: HistoryEvent[], refusals = false): Map<string, string> {
  const restarts = new Map<string, string>();
  const scheduled = new Map<string, { name?: string; payloads?: temporal.api.common.v1.IPayloads | null }>();
  const lost: { id: string; name?: string; call: string }[] = [];
  for (const e of events) {
    const s = e.activityTaskScheduledEventAttributes;
    if (s) {
      const id = String(e.eventId);
      const name = activityName(e);
      scheduled.set(id, { name, payloads: s.input });
      if (!lost.some((l) => l.name === name)) continue;
      const input = fromPayloads<{ lostWorker?: LostWorkerRestart; team?: { refused?: number } }>(s.input);
      if (!input?.lostWorker && !(refusals && (input?.team?.refused ?? 0) > 0)) continue;
      const call = sameCallKey(input);
      const i = lost.findIndex((l) => l.name === name && l.call === call);
      if (i >= 0) restarts.set(id, lost.splice(i, 1)[0]!.id);
    }
    const timedOut = e.activityTaskTimedOutEventAttributes;
    if (timedOut && isHeartbeatTimeout(timedOut.failure?.timeoutFailureInfo?.timeoutType)) {
      const id = String(timedOut.scheduledEventId);
      const start = scheduled.get(id);
      if (start) lost.push({ id, name: start.name, call: sameCallKey(fromPayloads(start.payloads)) });
    }
    const failed = e.activityTaskFailedEventAttributes;
    if (refusals && failed?.failure?.applicationFailureInfo?.type === 'TeamMismatchError') {
      const id = String(failed.scheduledEventId);
      const start = scheduled.get(id);
      if (start) lost.push({ id, name: start.name, call: sameCallKey(fromPayloads(start.payloads)) });
    }
  }
  return restarts;
}

/** A call's input without what marks a restart or a refusal, as a string two starts of one call share. */
function sameCallKey(input: unknown): string {
  if (typeof input !== 'object' || input === null) return JSON.stringify(input);
  const { lostWorker: _restart, team, ...call } = input as { lostWorker?: unknown; team?: Record<string, unknown> };
  const { refused: _refused, ...need } = team ?? {};
  return JSON.stringify(team ? { ...call, team: need } : call);
}

function isHeartbeatTimeout(type: temporal.api.enums.v1.TimeoutType | string | null | undefined): boolean {
  return type === temporal.api.enums.v1.TimeoutType.TIMEOUT_TYPE_HEARTBEAT || type === 'TIMEOUT_TYPE_HEARTBEAT';
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
    {
      ...at,
      activityTaskScheduledEventAttributes: {
        activityType: { name },
        ...(input !== undefined ? { input: payloads(input) } : {}),
      },
    },
    { ...at, activityTaskStartedEventAttributes: { scheduledEventId: e.eventId, attempt: data?.attempt ?? 1 } },
    m.failure
      ? { ...at, activityTaskFailedEventAttributes: { scheduledEventId: e.eventId, failure: m.failure } }
      : {
          ...at,
          activityTaskCompletedEventAttributes: {
            scheduledEventId: e.eventId,
            ...(output !== undefined ? { result: payloads(output) } : {}),
          },
        },
  ];
}

/** A chain's start input as history recorded it, or `undefined` when it is none (not JSON, another shape): the run's failure says why. */
export function recordedStartInput(
  payloads: temporal.api.common.v1.IPayloads | null | undefined,
): HandoffRunInput | undefined {
  const value = fromOutsidePayloads(payloads);
  return isRecord(value) && typeof value.agent === 'string' && typeof value.input === 'string'
    ? (value as unknown as HandoffRunInput)
    : undefined;
}
