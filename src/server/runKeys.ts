/**
 * The workflow id of a chain started over HTTP without a workflow id or an `Idempotency-Key`: one
 * derived from the caller's identity, the service's task queue and the request (agent, input,
 * options, context, experiment), and the window of `idempotencyWindowMs` the request came in. The
 * same request from the same caller within the window is the same start: it answers with the
 * chain the first one started instead of starting a second one.
 */
import { sortedJson } from '../common/signatures/canonical';
import { createHash } from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { ServiceContext } from './context';

/** Where a keyless start goes: the id it starts under, or the chain an earlier one started within the window. */
export type DerivedStart =
  { workflowId: string; existing?: undefined } | { workflowId: string; runId: string; existing: true };

/** The id of a start without a key, or the chain the same request started within the window. */
export async function derivedStart(
  ctx: ServiceContext,
  identity: string,
  agent: string,
  request: unknown,
  windowMs: number,
  now = Date.now(),
): Promise<DerivedStart> {
  const hash = createHash('sha256')
    .update(JSON.stringify([identity, ctx.baton.taskQueue, stableJson(request)]))
    .digest('hex')
    .slice(0, 32);
  const window = Math.floor(now / windowMs);
  const idOf = (w: number) => `baton-${agent}-${hash}-${w.toString(36)}`;
  // The window before this one: its chain is the same start when it began less than a window ago.
  const before = await startedAt(ctx, idOf(window - 1));
  if (before && now - before.at < windowMs)
    return { workflowId: idOf(window - 1), runId: before.runId, existing: true };
  return { workflowId: idOf(window) };
}

async function startedAt(ctx: ServiceContext, workflowId: string): Promise<{ at: number; runId: string } | undefined> {
  try {
    const d = await ctx.baton.client.workflow.getHandle(workflowId).describe();
    return { at: d.startTime.getTime(), runId: d.raw.workflowExecutionInfo?.firstRunId || d.runId };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

/** JSON with its object keys sorted, so the same request reads the same whatever order its fields came in (written without recursion: any depth). */
export const stableJson = sortedJson;
