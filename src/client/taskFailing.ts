/**
 * A run whose workflow task is failing or being retried (its worker lost mid-task, a task that
 * fails) takes no update until a worker completes a task again, and Temporal refuses one meanwhile
 * with FAILED_PRECONDITION: nothing was refused for what it asked. Conversation messages and
 * decisions are sent again through it; the HTTP service answers it 503.
 */
import { ApplicationFailure, ServiceError, WorkflowUpdateFailedError } from '@temporalio/client';

/** How long a call waits for a run whose workflow task is failing to take it again. */
export const TASK_FAILING_PATIENCE_MS = 30_000;

/**
 * `start`, again while the run's workflow task is failing. An update over Temporal's payload limit
 * from another client fails the task that carries it (a worker's answer to an update repeats its
 * input), and a worker lost mid-task leaves its task to time out; Temporal drops the update and the
 * next task runs, but meanwhile refuses updates with FAILED_PRECONDITION.
 */
export async function whileWorkflowTaskFails<H>(start: () => Promise<H>): Promise<H> {
  const deadline = Date.now() + TASK_FAILING_PATIENCE_MS;
  for (let wait = 250; ; wait = Math.min(wait * 2, 4000)) {
    try {
      return await start();
    } catch (err) {
      if (!workflowTaskFailing(err) || Date.now() + wait > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/**
 * Whether Temporal refused a call because the run's workflow task is failing or being retried (its
 * worker lost mid-task, a task that fails): FAILED_PRECONDITION, "Workflow Task in failed state".
 * Nothing was refused for what the call asked; it is taken once a worker completes a task again.
 */
export function workflowTaskFailing(err: unknown): boolean {
  if (updateUnprocessed(err)) return true;
  // gRPC FAILED_PRECONDITION with Temporal's "Workflow Task in failed state", as it is or wrapped by the
  // client; or an update the server dropped with the workflow task that carried it, which failed for
  // a reason of its own (a continue-as-new refused because new events came in: UnhandledCommand).
  const status = (err instanceof ServiceError ? err.cause : err) as
    { code?: unknown; details?: unknown; message?: unknown } | undefined;
  return (
    status?.code === 9 &&
    /Workflow Task in failed state|unexpected workflow task failure/i.test(
      `${String(status.details)} ${String(status.message)}`,
    )
  );
}

/**
 * Whether Temporal rejected an update as `UnprocessedUpdate`: the workflow task that carried it was
 * completed without an answer to it (a task completed while its run was being recovered on another
 * worker). The workflow never saw it, so nothing was taken or refused; it is sent again.
 */
export function updateUnprocessed(err: unknown): boolean {
  return (
    err instanceof WorkflowUpdateFailedError &&
    err.cause instanceof ApplicationFailure &&
    err.cause.type === 'UnprocessedUpdate'
  );
}
