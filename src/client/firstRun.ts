/** Where a chain begins: the run its events and stream are followed from when no run is named. */
import type { WorkflowClient } from '@temporalio/client';

/**
 * The run a chain's events start from: its current run, followed back through continue-as-new (a
 * replay's run already holds the history it continues).
 */
export async function firstRunOfChain(client: WorkflowClient, workflowId: string): Promise<string> {
  let runId = (await client.getHandle(workflowId).describe()).runId;
  for (const seen = new Set<string>(); !seen.has(runId);) {
    seen.add(runId);
    const { history } = await client.workflowService.getWorkflowExecutionHistory({
      namespace: client.options.namespace,
      execution: { workflowId, runId },
      maximumPageSize: 1,
    });
    const previous = history?.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId;
    if (!previous) break;
    runId = previous;
  }
  return runId;
}
