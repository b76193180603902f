/**
 * The workflow id of a chain started over HTTP with a key, and the chain an earlier start with the
 * same key began. With an `Idempotency-Key` (or an A2A message id), the id comes from the caller and
 * the key, and a start that finds the chain is answered with it when it asked for the same thing.
 * Without a workflow id or a key, the id is derived from the caller's identity, the service's task
 * queue and the request (agent, input, options, context, experiment), and the window of
 * `idempotencyWindowMs` the request came in: the same request from the same caller within the
 * window is the same start, answered with the chain the first one started instead of a second one.
 */
import { sortedJson } from '../common/signatures/canonical';
import { createHash } from 'node:crypto';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { HandoffRunInput } from '../common/run';
import type { ServiceContext } from './context';
import { HttpProblem } from './problems';

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
const stableJson = sortedJson;

/** The workflow id a keyed start gets: the same for the same caller and key, different across callers. */
export function idempotentWorkflowId(agent: string, identity: string, key: string): string {
  return `baton-${agent}-${createHash('sha256').update(`${identity}\n${key}`).digest('hex').slice(0, 32)}`;
}

/**
 * The first run of the chain `workflowId` when it exists and was started with the same input;
 * 409 when it was started with a different one (a key reused for another request). `key` names
 * the key in the refusal.
 */
export async function existingRun(
  client: Client,
  workflowId: string,
  input: HandoffRunInput,
  key = 'Idempotency-Key',
): Promise<string | undefined> {
  let firstRunId: string;
  try {
    const description = await client.workflow.getHandle(workflowId).describe();
    firstRunId = description.raw.workflowExecutionInfo?.firstRunId || description.runId;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
  const { history } = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId, runId: firstRunId },
    maximumPageSize: 1,
  });
  const payloads = history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads ?? [];
  let decoded = payloads;
  for (const codec of [...client.options.loadedDataConverter.payloadCodecs].reverse())
    decoded = await codec.decode(decoded);
  const started = decoded[0]
    ? (client.options.loadedDataConverter.payloadConverter.fromPayload(decoded[0]) as HandoffRunInput)
    : undefined;
  if (started && !sameRequest(started, input)) {
    throw new HttpProblem(
      409,
      `${key} reused`,
      `This ${key} started a chain with a different request; use a new one for a new request.`,
    );
  }
  return firstRunId;
}

function sameRequest(a: HandoffRunInput, b: HandoffRunInput): boolean {
  const view = (x: HandoffRunInput) =>
    stableJson({ agent: x.agent, input: x.input, options: x.options ?? {}, context: x.context ?? null });
  return view(a) === view(b);
}
