import type { Client, WorkflowHandle } from '@temporalio/client';
import { REPLAY_OF_MEMO } from '../common/messages';
import { decodeHistory } from '../payloads/history';
import { buildAudit, type AuditChain, type RunHistory } from './chain';

/**
 * Fetch a chain's history, following continue-as-new back to its first run, and rebuild it.
 * Payloads are decoded with the client's payload codecs (compression, encryption), then read with
 * Temporal's default payload converter.
 */
export async function auditRun(client: Client, workflowId: string, lastRunId?: string): Promise<AuditChain> {
  const runs: RunHistory[] = [];
  const last = await client.workflow.getHandle(workflowId, lastRunId).describe();
  let runId: string | undefined = last.runId;
  while (runId && !runs.some((r) => r.runId === runId)) {
    const fetched: Awaited<ReturnType<WorkflowHandle['fetchHistory']>> = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const history = await decodeHistory(fetched, client.options.loadedDataConverter.payloadCodecs);
    const events: RunHistory['events'] = history.events ?? [];
    runs.unshift({ runId, events });
    runId = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  }
  const chain = buildAudit(workflowId, runs);
  const replayedBy = last.raw.workflowExtendedInfo?.resetRunId || (await resumedBy(client, workflowId, last.runId));
  // The specialists this chain delegated to, each audited from its own history: the audit is a tree.
  const childIds = [...new Set(chain.events.flatMap((e) => (e.kind === 'delegation' ? [e.childWorkflowId] : [])))];
  const children = await Promise.all(childIds.map((id) => auditRun(client, id).catch(() => undefined)));
  const found = children.filter((c): c is AuditChain => c !== undefined);
  return { ...chain, ...(replayedBy ? { replayedBy } : {}), ...(found.length > 0 ? { children: found } : {}) };
}

/** The run that resumed `runId` through a replay with overrides, found by its memo. */
async function resumedBy(client: Client, workflowId: string, runId: string): Promise<string | undefined> {
  for await (const wf of client.workflow.list({ query: `WorkflowId = "${workflowId}"` })) {
    const origin = wf.memo?.[REPLAY_OF_MEMO] as { runId?: string } | undefined;
    if (origin?.runId === runId) return wf.runId;
  }
  return undefined;
}
