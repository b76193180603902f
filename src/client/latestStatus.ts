/**
 * What became of a workflow whose update Temporal answered "not found": its latest run's status,
 * `RUNNING` when it goes on in a newer run, `undefined` when no such workflow can be described.
 */
import type { WorkflowHandle } from '@temporalio/client';

export function latestStatus(handle: WorkflowHandle): Promise<string | undefined> {
  return handle.describe().then(
    (d) => d.status.name,
    () => undefined,
  );
}
