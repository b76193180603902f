/**
 * What a run costs on Temporal Cloud, in actions, counted from its history by Temporal Cloud's
 * definition (docs.temporal.io/cloud/actions): its start (a client start, a child start or a
 * continue-as-new all start a run), each signal and accepted update, timer, search-attribute upsert
 * (not those that only record a patch's `TemporalChangeVersion`), activity attempt, and one for each
 * workflow task whose local activities ran. Heartbeats that reach the server, queries, and updates
 * a validator rejected are actions too but leave nothing in history: the server's own `action`
 * metric (`temporal server start-dev --metrics-port`) counts those.
 */
import { temporal } from '@temporalio/proto';
import { upsertIsAction } from '../common/searchAttributes';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const T = temporal.api.enums.v1.EventType;

/** A run's actions by kind, as its history records them. */
export interface HistoryActions {
  /** The run's start. */
  starts: number;
  signals: number;
  /** Updates accepted (a rejected update is an action too, but is not in history). */
  updates: number;
  timers: number;
  /** Search-attribute upserts, not counting those that only record a patch (`TemporalChangeVersion`). */
  searchAttributeUpserts: number;
  /** Activity attempts: each start and each retry. */
  activityAttempts: number;
  /** Workflow tasks that ran local activities (all the local activities of one task are one action). */
  localActivityTasks: number;
  total: number;
}

const LOCAL_ACTIVITY_MARKER = 'core_local_activity';

/** Count the actions of one run from its history events. */
export function countActions(events: readonly HistoryEvent[]): HistoryActions {
  const counted = {
    starts: 0,
    signals: 0,
    updates: 0,
    timers: 0,
    searchAttributeUpserts: 0,
    activityAttempts: 0,
    localActivityTasks: 0,
  };
  const scheduled = new Set<string>();
  const attempts = new Map<string, number>();
  const tasksWithLocalActivities = new Set<string>();
  let task = '0';
  for (const e of events) {
    switch (e.eventType) {
      case T.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
        counted.starts++;
        break;
      case T.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
        counted.signals++;
        break;
      case T.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED:
        counted.updates++;
        break;
      case T.EVENT_TYPE_TIMER_STARTED:
        counted.timers++;
        break;
      case T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
        task = String(e.eventId);
        break;
      case T.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES: {
        const keys = Object.keys(
          e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {},
        );
        if (upsertIsAction(keys)) counted.searchAttributeUpserts++;
        break;
      }
      case T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
        scheduled.add(String(e.eventId));
        break;
      case T.EVENT_TYPE_ACTIVITY_TASK_STARTED: {
        // Recorded once per activity, with the attempt that ended it: the attempts before it were retries.
        const id = String(e.activityTaskStartedEventAttributes?.scheduledEventId);
        attempts.set(id, Math.max(attempts.get(id) ?? 0, e.activityTaskStartedEventAttributes?.attempt ?? 1));
        break;
      }
      case T.EVENT_TYPE_MARKER_RECORDED:
        if (e.markerRecordedEventAttributes?.markerName === LOCAL_ACTIVITY_MARKER) tasksWithLocalActivities.add(task);
        break;
      default:
        break;
    }
  }
  // An activity scheduled but never started (cancelled while it waited) was never an attempt.
  for (const id of scheduled) counted.activityAttempts += attempts.get(id) ?? 0;
  counted.localActivityTasks = tasksWithLocalActivities.size;
  const total = Object.values(counted).reduce((a, b) => a + b, 0);
  return { ...counted, total };
}
