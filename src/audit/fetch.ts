import type { Client, WorkflowHandle } from '@temporalio/client';
import { buildAudit, type AuditChain, type RunHistory } from './chain';

/**
 * Fetch a chain's history, following continue-as-new back to its first run, and rebuild it.
 * Payloads are read with Temporal's default payload converter.
 */
export async function auditRun(client: Client, workflowId: string, lastRunId?: string): Promise<AuditChain> {
  const runs: RunHistory[] = [];
  const last = await client.workflow.getHandle(workflowId, lastRunId).describe();
  let runId: string | undefined = last.runId;
  while (runId && !runs.some((r) => r.runId === runId)) {
    const history: Awaited<ReturnType<WorkflowHandle['fetchHistory']>> = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const events: RunHistory['events'] = history.events ?? [];
    runs.unshift({ runId, events });
    runId = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  }
  const chain = buildAudit(workflowId, runs);
  const replayedBy = last.raw.workflowExtendedInfo?.resetRunId;
  return replayedBy ? { ...chain, replayedBy } : chain;
}
