/**
 * What a hostile-input target's history says about it: the workflow tasks that failed, the largest
 * memo an event wrote (and the most it may write), and how many decisions were applied.
 *
 * No vitest here: the fuzzing drill (drill/fuzz.ts, `hostile` lanes) uses it too, through hostile.ts.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { LIMITS } from '../../src';
import { APPROVAL_EVENT_MEMO } from '../../src/workflow';

/** The workflow tasks that failed (a task that met a signal arriving meanwhile is Temporal's way, not a failure). */
export async function failedTasks(handle: WorkflowHandle): Promise<string[]> {
  return ((await handle.fetchHistory()).events ?? []).flatMap((e) => {
    const failed = e.workflowTaskFailedEventAttributes;
    const cause = failed ? temporal.api.enums.v1.WorkflowTaskFailedCause[failed.cause ?? 0] : undefined;
    return failed && cause !== 'WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND'
      ? [`${cause}: ${failed.failure?.message?.slice(0, 200)}`]
      : [];
  });
}

/** The largest memo upsert, in bytes, and how many decisions were applied. */
export async function writes(handle: WorkflowHandle): Promise<{ memo: number; decided: number }> {
  let memo = 0;
  let decided = 0;
  for (const e of (await handle.fetchHistory()).events ?? []) {
    const fields = e.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields ?? {};
    memo = Math.max(
      memo,
      Object.values(fields).reduce((n, p) => n + (p.data?.length ?? 0), 0),
    );
    const event = fields[APPROVAL_EVENT_MEMO]?.data;
    if (event && (JSON.parse(Buffer.from(event).toString('utf8')) as { type?: string }).type === 'approval_decided')
      decided++;
  }
  return { memo, decided };
}

/** Most an event may write: the largest refusal, record or overrides, with room for JSON. */
export const MAX_MEMO_BYTES = LIMITS.optionsBytes + 8 * 1024;
