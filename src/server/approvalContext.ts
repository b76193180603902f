/**
 * What an approver sees of each waiting approval beside the approval itself: whether they may
 * decide it, the chain so far and the chain's request. Both are read from the chain (a query and
 * its history) within a deadline; a read that misses it under load is read again, so a card in the
 * live inbox gets its context once the chain's workers answer, not only when the waiting list changes.
 */
import { setMaxListeners } from 'node:events';
import type { PendingHandoff } from '../client/baton';
import { requestAsSeen } from '../client/requests';
import { redactPending } from '../client/sensitive';
import { chainQuery } from '../common/messages';
import type { HandoffRecord } from '../common/run';
import { mayDecide, type Identity } from './auth';
import type { ServiceContext } from './context';
import { isCallersTenant } from './tenancy';
import { withCallsAborted } from '../client/callSignal';

/** How long the inbox waits for a chain's workers to answer "the chain so far", and for its request to be read. */
const CHAIN_QUERY_MS = 2_000;
/** How often, and how many times, a waiting list whose context could not all be read is read again. */
const CONTEXT_RETRY_MS = 1_500;
const CONTEXT_RETRIES = 8;

/** A waiting approval as an approver sees it. */
export type ApprovalInContext = Awaited<ReturnType<typeof withChains>>[number];

/**
 * The pending approvals with, for each, whether `identity` may decide it, its chain so far and the
 * chain's request; a tool call's sensitive arguments redacted unless `identity` may decide it. The
 * reads end at their deadline, or with `signal` (a stream whose caller left): none outlives the
 * stream, so a service closed and then its connection leaves no call of its own behind.
 */
export async function withChains(
  ctx: ServiceContext,
  pending: PendingHandoff[],
  identity: Identity,
  signal?: AbortSignal,
) {
  const connection = ctx.baton.client.connection;
  const ended = AbortSignal.any([signal, ctx.closing].filter((s): s is AbortSignal => s !== undefined));
  // The queries of every chain on the page wait on it at once (each removes its listener when it ends).
  setMaxListeners(0, ended);
  const within = async <T>(fn: () => Promise<T>): Promise<T | undefined> => {
    // Under a signal aborted already, no call is started (withCallsAborted refuses it).
    const timed = () => connection.withDeadline(Date.now() + CHAIN_QUERY_MS, fn);
    return withCallsAborted(connection, ended, timed).catch(() => undefined);
  };
  const chains = new Map<string, Promise<HandoffRecord[] | undefined>>();
  for (const p of pending) {
    if (chains.has(p.workflowId)) continue;
    const handle = ctx.baton.client.workflow.getHandle(p.workflowId);
    chains.set(
      p.workflowId,
      within(() => handle.query(chainQuery)),
    );
  }
  return Promise.all(
    pending.map(async (p) => {
      const read = (id: string, runId?: string) => within(() => ctx.requests.of(id, runId));
      const [chain, asked] = await Promise.all([chains.get(p.workflowId), read(p.workflowId, p.runId)]);
      // A specialist's input is its task; what the customer asked is the top chain's request.
      const top = asked?.parent ? await read(asked.parent.rootWorkflowId) : undefined;
      const canDecide = mayDecide(identity, p.approvers);
      // The waiting call's arguments as the workflow holds them (text), to find its sensitive values.
      const call = {
        ...(p.tool ? { tool: { ...p.tool, arguments: p.tool.argumentsText } } : {}),
        ...(p.sensitive ? { sensitive: p.sensitive } : {}),
      };
      const seen = asked
        ? {
            request: {
              ...requestAsSeen(asked, call, canDecide),
              ...(top ? { original: requestAsSeen(top, call, canDecide) } : {}),
            },
          }
        : {};
      return { ...(canDecide ? p : redactPending(p)), canDecide, ...(chain ? { chain } : {}), ...seen };
    }),
  );
}

/**
 * Follow the replica's approvals feed for `identity`: `write` gets the caller's tenant's waiting
 * list in context on every change, and again, while part of its context could not be read, each
 * time a new reading finds more (a few times, until a newer list replaces it). Returns the
 * unsubscribe, which also ends the reads in flight.
 */
export function followWithContext(
  ctx: ServiceContext,
  identity: Identity,
  write: (approvals: ApprovalInContext[]) => Promise<void>,
  closed: () => boolean,
): () => void {
  let latest: Promise<void> = Promise.resolve();
  let generation = 0;
  let retry: NodeJS.Timeout | undefined;
  const gone = new AbortController();
  const show = (pending: PendingHandoff[], mine: number, attempt: number, before?: number) => {
    latest = latest
      .then(async () => {
        if (mine !== generation || closed()) return;
        const approvals = await withChains(ctx, pending, identity, gone.signal);
        const known = approvals.filter((a) => a.chain !== undefined && a.request !== undefined).length;
        if (mine !== generation || closed()) return;
        if (before === undefined || known > before) await write(approvals);
        if (known < approvals.length && attempt < CONTEXT_RETRIES)
          retry = setTimeout(() => show(pending, mine, attempt + 1, Math.max(known, before ?? 0)), CONTEXT_RETRY_MS);
      })
      // The client went away while the list was written: the stream is closing.
      .catch(() => undefined);
  };
  const unsubscribe = ctx.feed.subscribe((pending) => {
    generation += 1;
    clearTimeout(retry);
    // One feed serves every caller: each hears of its own tenant's chains only.
    show(
      pending.filter((p) => isCallersTenant(identity, p.tenant)),
      generation,
      0,
    );
  });
  return () => {
    clearTimeout(retry);
    unsubscribe();
    gone.abort();
  };
}
