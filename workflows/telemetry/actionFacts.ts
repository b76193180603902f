/**
 * The Temporal Cloud actions a workflow activation causes, by Temporal Cloud's definition
 * (docs.temporal.io/cloud/actions), as the worker sees them: from the activation's jobs (a run's
 * start, each signal delivered, each query answered) and the commands it sends (timers,
 * search-attribute upserts but those that only record a patch, accepted updates, and one for a
 * workflow task that runs local activities). Activity attempts and heartbeats are counted where
 * they run, on the worker (src/worker/telemetry/actionMetrics.ts). Workflow-safe imports only.
 */
import type { coresdk } from '@temporalio/proto';
import { upsertIsAction } from '../../src/common/searchAttributes';

/** What an action is, as `baton_temporal_actions_total` labels it. */
export type ActionKind =
  | 'start'
  | 'signal'
  | 'query'
  | 'update'
  | 'timer'
  | 'search_attributes'
  | 'local_activities'
  | 'activity_attempt'
  | 'heartbeat';

/** Actions by kind. */
export type ActionCounts = Partial<Record<ActionKind, number>>;

/** The actions of an activation's jobs: a run's start, the signals delivered and the queries answered. */
export function jobActions(activation: coresdk.workflow_activation.IWorkflowActivation): ActionCounts {
  const counts: ActionCounts = {};
  for (const job of activation.jobs ?? []) {
    if (job.initializeWorkflow) add(counts, 'start');
    else if (job.signalWorkflow) add(counts, 'signal');
    else if (job.queryWorkflow) add(counts, 'query');
  }
  return counts;
}

/** The actions of an activation's commands, as Temporal receives them (search-attribute upserts already merged). */
export function commandActions(commands: readonly coresdk.workflow_commands.IWorkflowCommand[]): ActionCounts {
  const counts: ActionCounts = {};
  let localActivities = false;
  for (const c of commands) {
    if (c.startTimer) add(counts, 'timer');
    else if (c.updateResponse?.accepted) add(counts, 'update');
    else if (c.scheduleLocalActivity) localActivities = true;
    else if (c.upsertWorkflowSearchAttributes) {
      const keys = Object.keys(c.upsertWorkflowSearchAttributes.searchAttributes?.indexedFields ?? {});
      if (upsertIsAction(keys)) add(counts, 'search_attributes');
    }
  }
  if (localActivities) add(counts, 'local_activities');
  return counts;
}

/** Whether `counts` holds any action. */
export function anyActions(counts: ActionCounts): boolean {
  return Object.values(counts).some((n) => (n ?? 0) > 0);
}

function add(counts: ActionCounts, kind: ActionKind): void {
  counts[kind] = (counts[kind] ?? 0) + 1;
}
