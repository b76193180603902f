/** What the trust-boundary tests read from a workflow's history: failed tasks, memo sizes, refusals. */
import type { WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { APPROVAL_EVENT_MEMO } from '../../src/workflow';
import { historyOf } from '../../src/payloads/historyPages';

type Event = temporal.api.history.v1.IHistoryEvent;

/**
 * The events of the handle's run, or, for a handle without a run id, of every run of the workflow
 * oldest first (a chain hands over to a new run while it waits, as soon as it has refused a
 * megabyte of payloads unread).
 */
async function eventsOf(handle: WorkflowHandle): Promise<Event[]> {
  // In pages small enough to receive: a history of signals near 2 MB each is more than gRPC takes at once.
  const given = (handle as { runId?: string }).runId;
  const runs: Event[][] = [];
  let runId = given;
  for (;;) {
    const events = (await historyOf(handle.client, handle.workflowId, runId)).events ?? [];
    runs.unshift(events);
    runId = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
    if (given !== undefined || !runId) return runs.flat();
  }
}

/**
 * The workflow tasks that failed, by cause. A task whose completion met a signal that arrived
 * meanwhile fails with `UnhandledCommand` and runs again at once with it: Temporal's way, not a failure.
 */
export async function failedTasks(handle: WorkflowHandle): Promise<string[]> {
  return (await eventsOf(handle)).flatMap((e) => {
    const failed = e.workflowTaskFailedEventAttributes;
    const cause = failed ? temporal.api.enums.v1.WorkflowTaskFailedCause[failed.cause ?? 0] : undefined;
    return failed && cause !== 'WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND'
      ? [`${cause}: ${failed.failure?.message?.slice(0, 300)}`]
      : [];
  });
}

/** The largest memo upsert the workflow wrote, in bytes, and the largest search attribute upsert. */
export async function largestWrites(handle: WorkflowHandle): Promise<{ memo: number; searchAttributes: number }> {
  let memo = 0;
  let searchAttributes = 0;
  for (const e of await eventsOf(handle)) {
    const fields = e.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields ?? {};
    memo = Math.max(
      memo,
      Object.values(fields).reduce((n, p) => n + (p.data?.length ?? 0), 0),
    );
    const attrs = e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {};
    searchAttributes = Math.max(
      searchAttributes,
      Object.values(attrs).reduce((n, p) => n + (p.data?.length ?? 0), 0),
    );
  }
  return { memo, searchAttributes };
}

/** The approval events the workflow recorded (`batonApprovalEvent`), in order. */
export async function approvalEvents(handle: WorkflowHandle): Promise<({ type: string } & Record<string, unknown>)[]> {
  return (await eventsOf(handle)).flatMap((e) => {
    const p = e.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields?.[APPROVAL_EVENT_MEMO];
    return p?.data
      ? [JSON.parse(Buffer.from(p.data).toString('utf8')) as { type: string } & Record<string, unknown>]
      : [];
  });
}

/**
 * Refusal records one per refusal again: a drain records a kind's refusals as its first (with
 * `count`) and the rest as `samples` (all of them while there are at most `LIMITS.refusalSamples` more).
 */
export function eachRefusal(
  events: ({ type: string } & Record<string, unknown>)[],
): ({ type: string } & Record<string, unknown>)[] {
  return events.flatMap((e) => {
    if (e.count === undefined) return [e];
    const { count: _count, samples, ...first } = e;
    return [
      first as typeof e,
      ...((samples as Record<string, unknown>[] | undefined) ?? []).map((s) => ({ type: e.type, ...s })),
    ];
  });
}

/** How a workflow stands: its status name. */
export async function statusOf(handle: WorkflowHandle): Promise<string> {
  return (await handle.describe()).status.name;
}

/** A string of `n` characters. */
export const big = (n: number, c = 'x') => c.repeat(n);

/** Roughly 1.5 MB and 2.5 MB: below and above Temporal's 2 MB payload limit. */
export const MB_1_5 = 1_500_000;
export const MB_2_5 = 2_500_000;
