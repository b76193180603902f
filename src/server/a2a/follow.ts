/**
 * Following a chain for an A2A client: its model calls' text as artifact updates (one artifact per
 * call, appended at its offset, replaced whole when baton's stream corrects or drops it, so text
 * streams exactly once as baton's streams do), handoffs as `working` status updates, up to the
 * chain's end or the first approval that still waits.
 */
import { TaskState, type TaskArtifactUpdateEvent, type TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { applyChange } from '../../streams/board';
import { formatPosition, parsePosition, streamRun, type RunStreamItem } from '../../client/follow';
import type { Identity } from '../auth';
import type { ServiceContext } from '../context';
import { runView } from '../runView';
import { agentMessage, contextOf, statusOf, textPart } from './tasks';

/** What following yields. */
export type ChainUpdate =
  | { kind: 'artifact'; data: TaskArtifactUpdateEvent }
  | { kind: 'status'; data: TaskStatusUpdateEvent }
  | { kind: 'stop'; why: 'waiting' | 'ended' };

/**
 * The chain's updates from `after` (its start without it) until it ends or waits for a person; with
 * `through` (who follows), a wait is an `input-required` status update and the chain is followed on to its end
 * (a resubscribed client sees a decision made elsewhere).
 */
export async function* followChain(
  ctx: ServiceContext,
  workflowId: string,
  after: string | undefined,
  signal: AbortSignal,
  through?: Identity,
): AsyncGenerator<ChainUpdate> {
  const contextId = contextOf(workflowId);
  const texts = new Map<string, string>();
  for await (const item of streamRun(ctx.baton.client.workflow, ctx.baton.streams, workflowId, undefined, {
    ...(after ? { after } : {}),
    signal,
  })) {
    if (item.kind === 'text' || item.kind === 'text_reset') {
      const key = `${item.workflowId}\n${item.call}`;
      const had = texts.get(key) ?? '';
      const now = applyChange(had, item);
      texts.set(key, now);
      const append = item.kind === 'text' && item.offset === had.length && had !== '';
      const artifactId = item.workflowId === workflowId ? `text:${item.call}` : `text:${item.workflowId}/${item.call}`;
      yield {
        kind: 'artifact',
        data: {
          taskId: workflowId,
          contextId,
          artifact: {
            artifactId,
            name: item.agent,
            description: `What ${item.agent} writes`,
            parts: [textPart(append ? item.text : now)],
            metadata: undefined,
            extensions: [],
          },
          append,
          lastChunk: false,
          metadata: undefined,
        },
      };
      continue;
    }
    if (item.kind === 'handoff') {
      const text = `${item.handoff.from} handed off to ${item.handoff.to}`;
      yield {
        kind: 'status',
        data: {
          taskId: workflowId,
          contextId,
          status: {
            state: TaskState.TASK_STATE_WORKING,
            message: agentMessage(workflowId, contextId, [textPart(text)]),
            timestamp: item.at,
          },
          metadata: undefined,
        },
      };
      continue;
    }
    const asked = askedApproval(item);
    if (asked && (await stillWaits(ctx, workflowId, asked))) {
      if (!through) {
        yield { kind: 'stop', why: 'waiting' };
        return;
      }
      const waiting = statusOf(await runView(ctx, workflowId, through));
      yield { kind: 'status', data: { taskId: workflowId, contextId, status: waiting, metadata: undefined } };
      continue;
    }
    if (item.kind === 'completed' || item.kind === 'failed' || item.kind === 'ended') {
      yield { kind: 'stop', why: 'ended' };
      return;
    }
  }
  yield { kind: 'stop', why: 'ended' };
}

function askedApproval(item: RunStreamItem): string | undefined {
  if (item.kind === 'approval_requested') return item.approval.handoffId;
  if (item.kind === 'specialist' && item.event.kind === 'approval_requested') return item.event.approval.handoffId;
  return undefined;
}

async function stillWaits(ctx: ServiceContext, workflowId: string, approvalId: string): Promise<boolean> {
  const pending = await ctx.baton.getRun(workflowId).pendingApprovals();
  return pending.some((p) => p.handoffId === approvalId);
}

/**
 * Where to follow a chain from once `approvalId` is decided: after the event that asked for it,
 * and after the text published until `cursor` (read before the decision, while the chain waited),
 * which the client had before the chain stopped to ask.
 */
export async function afterApproval(
  ctx: ServiceContext,
  workflowId: string,
  approvalId: string,
  cursor: string | undefined,
): Promise<string | undefined> {
  const abort = new AbortController();
  try {
    for await (const item of streamRun(ctx.baton.client.workflow, ctx.baton.streams, workflowId, undefined, {
      signal: abort.signal,
    })) {
      if (askedApproval(item) !== approvalId) continue;
      const event = parsePosition(item.position)?.event;
      return formatPosition({ ...(event ? { event } : {}), ...(cursor ? { cursor } : {}) });
    }
    return undefined;
  } finally {
    abort.abort();
  }
}
