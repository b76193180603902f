/**
 * Workflow task failures in history: which are Temporal's routine, and the name of a cause.
 */
import { temporal } from '@temporalio/proto';

/** Workflow task failures that are Temporal's routine, not a problem of the run. */
const ROUTINE_TASK_FAILURES = ['WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND', 'WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW'];

export function isRoutine(cause: temporal.api.enums.v1.WorkflowTaskFailedCause | string | null | undefined): boolean {
  return cause !== undefined && cause !== null && ROUTINE_TASK_FAILURES.includes(causeName(cause));
}

/** The name of a workflow task failure's cause (history read from JSON may carry it as the name already). */
export function causeName(cause: temporal.api.enums.v1.WorkflowTaskFailedCause | string): string {
  return typeof cause === 'string' ? cause : (temporal.api.enums.v1.WorkflowTaskFailedCause[cause] ?? String(cause));
}
