import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { REPLAY_OF_MEMO } from '../common/messages';
import { decodeHistory } from '../payloads/history';
import { historyOf } from '../payloads/historyPages';
import { fromPayload, fromPayloads } from '../payloads/read';
import type { HandoffRunInput } from '../common/run';
import { buildAudit, type AuditChain, type RunHistory } from './chain';

/**
 * Fetch a chain's history, following continue-as-new back to its first run, and rebuild it.
 * Payloads are decoded with the client's payload codecs (compression, encryption), then read with
 * Temporal's default payload converter.
 */
export async function auditRun(client: Client, workflowId: string, lastRunId?: string): Promise<AuditChain> {
  const { runs, described, lastRun } = await fetchChainRuns(client, workflowId, lastRunId, { throughReplays: true });
  const chain = buildAudit(workflowId, runs);
  const replayedBy = described.workflowExtendedInfo?.resetRunId || (await resumedBy(client, workflowId, lastRun));
  // The specialists this chain delegated to, each audited from its own history: the audit is a tree.
  const childIds = [...new Set(chain.events.flatMap((e) => (e.kind === 'delegation' ? [e.childWorkflowId] : [])))];
  const children = await Promise.all(childIds.map((id) => auditRun(client, id).catch(() => undefined)));
  const found = children.filter((c): c is AuditChain => c !== undefined);
  return { ...chain, ...(replayedBy ? { replayedBy } : {}), ...(found.length > 0 ? { children: found } : {}) };
}

/**
 * The histories of a chain's runs, oldest first, decoded with the client's payload codecs: the
 * latest run of `workflowId` (or `lastRunId`) and the runs it continued as new from — and, with
 * `throughReplays`, the runs a replay that resumed from rebuilt state was replayed from (the
 * decisions taken before the replay are in their histories only).
 */
export async function fetchChainRuns(
  client: Client,
  workflowId: string,
  lastRunId?: string,
  options: { throughReplays?: boolean } = {},
) {
  const runs: RunHistory[] = [];
  // Described raw: the client's describe() decodes the memo, which a client without the
  // deployment's codecs cannot, and the audit needs none of it to name what it lacks.
  const described = await client.workflowService.describeWorkflowExecution({
    namespace: client.options.namespace,
    execution: { workflowId, runId: lastRunId },
  });
  const lastRun = described.workflowExecutionInfo?.execution?.runId ?? lastRunId ?? '';
  let runId: string | undefined = lastRun;
  while (runId && !runs.some((r) => r.runId === runId)) {
    const fetched = await historyOf(client, workflowId, runId);
    const history = await decodeHistory(fetched, client.options.loadedDataConverter.payloadCodecs);
    const events: RunHistory['events'] = history.events ?? [];
    runs.unshift({ runId, events });
    const started = events[0]?.workflowExecutionStartedEventAttributes;
    runId =
      started?.continuedExecutionRunId || (options.throughReplays ? replayedFrom(workflowId, started) : undefined);
  }
  return { runs, described, lastRun };
}

/** The run of `workflowId` a run was replayed from (its start resumes rebuilt state naming it), if any. */
function replayedFrom(
  workflowId: string,
  started: temporal.api.history.v1.IWorkflowExecutionStartedEventAttributes | null | undefined,
): string | undefined {
  const origin = fromPayloads<HandoffRunInput>(started?.input)?.resume?.replayOf;
  return origin?.workflowId === workflowId && origin.runId ? origin.runId : undefined;
}

/** The run that resumed `runId` through a replay with overrides, found by its memo. */
async function resumedBy(client: Client, workflowId: string, runId: string): Promise<string | undefined> {
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await client.workflowService.listWorkflowExecutions({
      namespace: client.options.namespace,
      query: `WorkflowId = "${workflowId}"`,
      nextPageToken,
    });
    for (const wf of page.executions ?? []) {
      const field = wf.memo?.fields?.[REPLAY_OF_MEMO];
      if (!field) continue;
      const decoded = await decodeHistory({ field }, client.options.loadedDataConverter.payloadCodecs);
      const origin = fromPayload<{ runId?: string }>(decoded.field);
      if (origin?.runId === runId) return wf.execution?.runId ?? undefined;
    }
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return undefined;
}
