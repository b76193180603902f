/**
 * Following a chain live: its events from history (long-polling, as `run.events()`) merged with
 * the text of its model calls from the transport, as the {@link TextBoard} puts it together. Each
 * item carries the position to resume after; a follower that resumes gets the events it missed and
 * the text published after the text it had.
 */
import type { WorkflowClient } from '@temporalio/client';
import { runEvents, type RunEventsOptions } from './events';
import type { RunEvent } from './runEvent';
import { firstRunOfChain } from './firstRun';
import { TextBoard, type TextChange } from '../streams/board';
import { Mailbox } from '../streams/mailbox';
import type { StreamEntry, StreamTransport } from '../streams/types';
import { withCallsAborted } from './callSignal';

/** Text of a model call as it forms (see {@link TextBoard}), with when it arrived and the run that wrote it. */
export type StreamText = TextChange & { at: string; runId: string };

/**
 * Said once when the transport fails (its server is down or refuses): the text of model calls
 * stops forming, and each call's answer comes whole from history as it ends. The transport is
 * tried again meanwhile; text that forms once it is back comes as before.
 */
export interface TextUnavailable {
  kind: 'text_unavailable';
  /** What went wrong, for people. */
  error: string;
  at: string;
  /** The run followed when it happened. */
  runId: string;
}

/** What `run.stream()` yields: the run's events, its text as it forms, and whether the text is unavailable, each with its position. */
export type RunStreamItem = (RunEvent | StreamText | TextUnavailable) & {
  /** Where this item is: give it as `after` (or an SSE `Last-Event-ID`) to resume after it. */
  position: string;
};

/** Options of `run.stream()`. */
export interface RunStreamOptions extends RunEventsOptions {
  /** Resume after this position (an item's `position`, an SSE event id); from the start of the chain without it. */
  after?: string;
}

/** A position: the last event (its run and index among that run's events) and the transport's cursor. */
export interface StreamPosition {
  event?: { runId: string; index: number };
  cursor?: string;
}

/** `<runId>:<n>~<cursor>`, either side possibly empty. */
export function formatPosition(p: StreamPosition): string {
  return `${p.event ? `${p.event.runId}:${p.event.index}` : ''}~${p.cursor ?? ''}`;
}

/** The position an id names; `undefined` when it is not one (a plain `<runId>:<n>` event id is). */
export function parsePosition(raw: string | undefined): StreamPosition | undefined {
  const m = /^(?:([^:~\s]+):(\d+))?(?:~([0-9-]*))?$/.exec(raw?.trim() ?? '');
  if (!m || (!m[1] && !m[3])) return undefined;
  return { ...(m[1] ? { event: { runId: m[1], index: Number(m[2]) } } : {}), ...(m[3] ? { cursor: m[3] } : {}) };
}

const FINAL = new Set<string>(['completed', 'failed', 'ended']);

type Arrival =
  { event: RunEvent } | { entries: StreamEntry[] } | { error: unknown } | { ended: true } | { textLost: unknown };

/** How long a follower waits before it reads the transport again after a failure: doubling from the first to the last. */
const RETRY_MS = { first: 1_000, last: 15_000 };

/**
 * The events and text of chain `workflowId` (from run `runId`, else from the chain's first run),
 * until it ends or `signal` aborts. Text comes from `streams`; when the transport fails, the
 * answers still come, whole, as history records them, and the follower is told so once.
 */
export async function* streamRun(
  client: WorkflowClient,
  streams: StreamTransport,
  workflowId: string,
  runId: string | undefined,
  options: RunStreamOptions & { signal?: AbortSignal } = {},
): AsyncGenerator<RunStreamItem> {
  const after = options.after !== undefined ? parsePosition(options.after) : undefined;
  const from = after?.event?.runId ?? runId ?? (await firstRunOfChain(client, workflowId));
  const abort = new AbortController();
  const stop = () => abort.abort();
  options.signal?.addEventListener('abort', stop, { once: true });
  // A signal aborted already never fires: the follower stops before it reads.
  if (options.signal?.aborted) stop();
  const arrivals = new Mailbox<Arrival>();
  abort.signal.addEventListener('abort', () => arrivals.nudge(), { once: true });
  const board = new TextBoard();
  const arrive = (a: Arrival) => arrivals.put(a);
  const events = runEvents(client, workflowId, from, options);
  void (async () => {
    try {
      for (;;) {
        const next = await withCallsAborted(client.connection, abort.signal, () => events.next());
        // The run ended before the position resumed after: nothing more comes.
        if (next.done) return arrive({ ended: true });
        arrive({ event: next.value });
      }
    } catch (err) {
      if (!abort.signal.aborted) arrive({ error: err });
    }
  })();
  void followText(streams, workflowId, after?.cursor, abort.signal, arrive);
  const position: StreamPosition = {
    ...(after?.event ? { event: after.event } : {}),
    ...(after?.cursor ? { cursor: after.cursor } : {}),
  };
  let eventRun: string | undefined;
  let index = -1;
  try {
    while (!abort.signal.aborted) {
      const a = await arrivals.take();
      if (!a) continue;
      if ('error' in a) throw a.error;
      if ('ended' in a) return;
      if ('textLost' in a) {
        yield {
          kind: 'text_unavailable',
          error: a.textLost instanceof Error ? a.textLost.message : String(a.textLost),
          at: new Date().toISOString(),
          runId: eventRun ?? from,
          position: formatPosition(position),
        };
        continue;
      }
      if ('entries' in a) {
        for (const { cursor, delta } of a.entries) {
          position.cursor = cursor;
          for (const change of board.delta(delta))
            yield { ...change, at: new Date().toISOString(), runId: delta.runId, position: formatPosition(position) };
        }
        continue;
      }
      const e = a.event;
      index = e.runId === eventRun ? index + 1 : 0;
      eventRun = e.runId;
      // Resuming: the events up to the one named were seen.
      if (after?.event && e.runId === after.event.runId && index <= after.event.index) {
        settle(board, workflowId, e);
        continue;
      }
      position.event = { runId: e.runId, index };
      for (const change of settle(board, workflowId, e))
        yield { ...change, at: e.at, runId: e.runId, position: formatPosition(position) };
      yield { ...e, position: formatPosition(position) };
      if (FINAL.has(e.kind)) return;
    }
  } finally {
    abort.abort();
    options.signal?.removeEventListener('abort', stop);
    void events.return(undefined).catch(() => undefined);
  }
}

/**
 * The transport's batches of `topic` as arrivals, until `signal` aborts. When the transport fails,
 * the failure arrives once (the answers still come from history, whole) and it is read again
 * after a pause, from the last batch that arrived.
 */
async function followText(
  streams: StreamTransport,
  topic: string,
  cursor: string | undefined,
  signal: AbortSignal,
  arrive: (a: Arrival) => void,
): Promise<void> {
  let told = false;
  let pause = RETRY_MS.first;
  while (!signal.aborted) {
    try {
      for await (const entries of streams.read(topic, cursor, signal)) {
        cursor = entries.at(-1)?.cursor ?? cursor;
        pause = RETRY_MS.first;
        arrive({ entries });
      }
      return;
    } catch (err) {
      if (signal.aborted) return;
      if (!told) arrive({ textLost: err });
      told = true;
    }
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, pause);
      signal.addEventListener('abort', done, { once: true });
    });
    pause = Math.min(pause * 2, RETRY_MS.last);
  }
}

/** The text changes an event settles: a model call's recorded answer, in this chain or a specialist's. */
function settle(board: TextBoard, workflowId: string, e: RunEvent): TextChange[] {
  if (e.kind === 'specialist') return settle(board, e.workflowId, e.event);
  if (e.kind === 'model_stopped' && e.call) return board.settle(workflowId, e.call, e.agent, '', { reason: 'stopped' });
  if (e.kind !== 'model_answered' || !e.call || e.text === undefined) return [];
  return board.settle(workflowId, e.call, e.agent, e.text ?? '');
}
