/**
 * Following a chain for an MCP tool call: each step (a model answered, a tool ran, a handoff, an
 * approval asked or decided) as a progress notification, until the chain ends, waits for a person,
 * or the client's wait is over.
 */
import type { RunEvent } from '../../client/runEvent';
import { streamRun } from '../../client/follow';
import type { ServiceContext } from '../context';

/** Sends one progress notification. */
export type Progress = (progress: number, message: string) => Promise<void>;

/**
 * Follow chain `workflowId` for at most `waitSeconds`. With `decided`, the approval the caller just
 * decided: what happened up to its decision is passed over.
 */
export async function followForProgress(
  ctx: ServiceContext,
  workflowId: string,
  waitSeconds: number,
  progress: Progress | undefined,
  signal: AbortSignal,
  decided?: string,
): Promise<void> {
  if (waitSeconds <= 0) return;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), waitSeconds * 1000);
  const stop = () => abort.abort();
  signal.addEventListener('abort', stop);
  // A signal aborted already never fires: the chain is not followed.
  if (signal.aborted) stop();
  let steps = 0;
  let passing = decided !== undefined;
  try {
    for await (const item of streamRun(ctx.baton.client.workflow, ctx.baton.streams, workflowId, undefined, {
      signal: abort.signal,
    })) {
      if (item.kind === 'text' || item.kind === 'text_reset' || item.kind === 'text_unavailable') continue;
      if (passing) {
        passing = !(item.kind === 'approval_decided' && item.decision.handoffId === decided);
        continue;
      }
      const said = describe(item);
      if (said) await progress?.(++steps, said).catch(() => undefined);
      if (item.kind === 'completed' || item.kind === 'failed' || item.kind === 'ended') return;
      const asked =
        item.kind === 'approval_requested'
          ? item.approval.handoffId
          : item.kind === 'specialist' && item.event.kind === 'approval_requested'
            ? item.event.approval.handoffId
            : undefined;
      if (asked && (await ctx.baton.getRun(workflowId).pendingApprovals()).some((p) => p.handoffId === asked)) return;
    }
  } catch (err) {
    if (!abort.signal.aborted) throw err;
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', stop);
    abort.abort();
  }
}

/** A step, for people. */
function describe(e: RunEvent): string | undefined {
  switch (e.kind) {
    case 'model_answered':
      return `${e.agent} answered`;
    case 'tool_answered':
      return `${e.agent} ran ${e.tool}`;
    case 'handoff':
      return `${e.handoff.from} handed off to ${e.handoff.to}`;
    case 'approval_requested':
      return `waiting for approval ${e.approval.handoffId}: ${e.approval.from} → ${e.approval.to}`;
    case 'approval_decided':
      return `approval ${e.decision.handoffId} ${e.decision.outcome}`;
    case 'delegation_started':
      return `${e.agent} delegated to ${e.to}`;
    case 'specialist':
      return describe(e.event);
    case 'completed':
      return 'completed';
    case 'failed':
      return `failed: ${e.error.message}`;
    case 'ended':
      return e.status;
    default:
      return undefined;
  }
}
