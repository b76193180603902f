/**
 * Server-Sent Events: a chain's events as they happen (from `BatonRun.events()`'s history
 * long-polling), each with an id `<runId>:<n>` so a client that reconnects with `Last-Event-ID`
 * gets exactly the events it missed; and the pending approvals, pushed whenever they change.
 */
import type { Client } from '@temporalio/client';
import type { SSEStreamingApi } from 'hono/streaming';
import type { Baton, PendingHandoff } from '../client/baton';
import { runEvents } from '../client/events';
import type { RunEvent } from '../client/runEvent';
import { firstRunOfChain } from '../client/firstRun';
import { withCallsAborted } from '../client/callSignal';

/** How often an idle stream sends a comment, so proxies keep it open. */
const KEEPALIVE_MS = 15_000;

/** An event id: the run it came from and its position among that run's events. */
export interface EventPosition {
  runId: string;
  index: number;
}

/** The position a `Last-Event-ID` names; `undefined` for none or a malformed one. */
export function parseEventId(raw: string | undefined): EventPosition | undefined {
  const m = /^([^:\s]+):(\d+)$/.exec(raw?.trim() ?? '');
  return m ? { runId: m[1]!, index: Number(m[2]) } : undefined;
}

/** A run event as JSON: a failure's error becomes its type and message (in a specialist's events too). */
export function eventJson(e: RunEvent): Record<string, unknown> {
  if (e.kind === 'failed') return { ...e, error: { type: e.error.name, message: e.error.message } };
  if (e.kind === 'specialist') return { ...e, event: eventJson(e.event) };
  return e;
}

/**
 * Write the chain's events to `stream` from `after` on (or from its start), until the chain ends or
 * the client goes away. Waiting reads are cancelled when the client disconnects.
 */
export async function streamRunEvents(
  stream: SSEStreamingApi,
  client: Client,
  workflowId: string,
  after: EventPosition | undefined,
): Promise<void> {
  const from = after?.runId ?? (await firstRunOfChain(client.workflow, workflowId));
  const abort = new AbortController();
  stream.onAbort(() => abort.abort());
  const keepalive = setInterval(() => void stream.write(': keepalive\n\n').catch(() => undefined), KEEPALIVE_MS);
  const events = runEvents(client.workflow, workflowId, from);
  let runId: string | undefined;
  let index = -1;
  try {
    for (;;) {
      const next = await withCallsAborted(client.connection, abort.signal, () => events.next());
      if (next.done || stream.aborted) return;
      const e = next.value;
      index = e.runId === runId ? index + 1 : 0;
      runId = e.runId;
      if (after && e.runId === after.runId && index <= after.index) continue;
      await stream.writeSSE({ id: `${e.runId}:${index}`, event: e.kind, data: JSON.stringify(eventJson(e)) });
    }
  } catch (err) {
    if (!abort.signal.aborted) throw err;
  } finally {
    clearInterval(keepalive);
    void events.return(undefined).catch(() => undefined);
  }
}

/**
 * The pending approvals, read every `intervalMs` while someone listens, and pushed to every
 * listener when they change. One read serves all of a replica's listeners.
 */
export class ApprovalsFeed {
  private readonly listeners = new Set<(approvals: PendingHandoff[]) => void>();
  private timer?: NodeJS.Timeout;
  private last?: { key: string; approvals: PendingHandoff[] };
  private reading = false;
  /** Ends the read in flight once nobody listens: a closing service leaves no call behind. */
  private listening = new AbortController();
  /** Whether the last read failed: a failure is reported once, not on every read while it lasts. */
  private failing = false;

  constructor(
    private readonly baton: Baton,
    private readonly intervalMs: number,
    private readonly onError: (err: unknown) => void,
    /** The service's own: once aborted, the feed reads no more and ends the read in flight. */
    private readonly closing?: AbortSignal,
  ) {
    closing?.addEventListener('abort', () => this.listening.abort(), { once: true });
  }

  /** Call `listener` with the current list now (when known) and on every change; returns the unsubscribe. */
  subscribe(listener: (approvals: PendingHandoff[]) => void): () => void {
    this.listeners.add(listener);
    if (this.last) listener(this.last.approvals);
    if (!this.timer) {
      void this.read();
      this.timer = setInterval(() => void this.read(), this.intervalMs);
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = undefined;
        this.last = undefined;
        this.listening.abort();
        this.listening = new AbortController();
      }
    };
  }

  private async read(): Promise<void> {
    if (this.reading || this.closing?.aborted) return;
    this.reading = true;
    try {
      // Every listener gets the list redacted for its own caller (see the approval routes).
      const { signal } = this.listening;
      const approvals = await withCallsAborted(this.baton.client.connection, signal, () =>
        this.baton.pending({ reveal: true }),
      );
      if (signal.aborted) return;
      this.failing = false;
      // A question asked or answered changes what a card shows, so it is a change too.
      const key = JSON.stringify(
        approvals.map((a) => [
          a.workflowId,
          a.handoffId,
          a.questions?.length ?? 0,
          a.questions?.at(-1)?.answer === undefined,
        ]),
      );
      if (this.last?.key === key) return;
      this.last = { key, approvals };
      for (const listener of this.listeners) listener(approvals);
    } catch (err) {
      if (this.listeners.size === 0) return;
      if (!this.failing) this.onError(err);
      this.failing = true;
    } finally {
      this.reading = false;
    }
  }
}
