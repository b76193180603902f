/**
 * Workflow task failures in history: which are Temporal's routine, and the name of a cause.
 */
import { temporal } from '@temporalio/proto';

/**
 * Workflow task failures that are Temporal's routine, not a problem of the run: a signal or an
 * update arrived while the task completed (the server has the worker run a new task with it), the
 * server flushed more buffered signals than it holds while a task ran (it fails that task and
 * schedules a new one; when it closes the run instead, the run says so), a reset, or a sticky
 * queue given up.
 */
const ROUTINE_TASK_FAILURES = [
  'WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND',
  'WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_UPDATE',
  'WORKFLOW_TASK_FAILED_CAUSE_FORCE_CLOSE_COMMAND',
  'WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW',
  'WORKFLOW_TASK_FAILED_CAUSE_RESET_STICKY_TASK_QUEUE',
];

export function isRoutine(cause: temporal.api.enums.v1.WorkflowTaskFailedCause | string | null | undefined): boolean {
  return cause !== undefined && cause !== null && ROUTINE_TASK_FAILURES.includes(causeName(cause));
}

/** The name of a workflow task failure's cause (history read from JSON may carry it as the name already). */
export function causeName(cause: temporal.api.enums.v1.WorkflowTaskFailedCause | string): string {
  return typeof cause === 'string' ? cause : (temporal.api.enums.v1.WorkflowTaskFailedCause[cause] ?? String(cause));
}
