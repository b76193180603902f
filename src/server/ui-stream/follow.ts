/**
 * Following one answer live: the workflow's history (long-polled, across continue-as-new) and the
 * text its model calls publish, read into the answer's view; each change yields the chunks that
 * bring the client to it. Ends when the answer ends, or when it waits for a decision the caller
 * makes in the chat (the client answers with its next request).
 */
import type { Client } from '@temporalio/client';
import { firstRunOfChain } from '../../client/firstRun';
import { decodeHistory } from '../../payloads/history';
import { HistoryPages } from '../../payloads/historyPages';
import type { HistoryEvent } from '../../payloads/read';
import { Mailbox } from '../../streams/mailbox';
import type { StreamEntry, StreamTransport } from '../../streams/types';
import type { UiChunk } from './chunks';
import { AnswerReader, type MayDecide } from './reader';
import { type ChunkWriter, waitsForCaller } from './writer';
import { withCallsAborted } from '../../client/callSignal';

/** How long a reply waits for history to show its turn before it stands for the answer. */
const REPLY_GRACE_MS = 1_500;

/** What to follow. */
export interface FollowAnswer {
  client: Client;
  streams: StreamTransport;
  workflowId: string;
  mode: 'conversation' | 'chain';
  /** The user message's key (a chain: its workflow id). */
  key: string;
  mayDecide: MayDecide;
  writer: ChunkWriter;
  /** Settles when the message is answered or refused; a refusal before its turn began ends the stream with the error. */
  reply?: Promise<unknown>;
  /** Describes a refusal or failure for the `error` chunk. */
  describe?: (err: unknown) => string;
  signal: AbortSignal;
}

type Arrival =
  | { events: HistoryEvent[] }
  | { entries: StreamEntry[] }
  | { error: unknown }
  | { refused: unknown }
  | { closed: true }
  | { replied: unknown; waited?: boolean };

/** The chunks of the answer to `key`, as they become known; then its end. */
export async function* followAnswer(f: FollowAnswer): AsyncGenerator<UiChunk[]> {
  const abort = new AbortController();
  const stop = () => abort.abort();
  f.signal.addEventListener('abort', stop, { once: true });
  // A signal aborted already never fires: the answer is not followed.
  if (f.signal.aborted) stop();
  const arrivals = new Mailbox<Arrival>();
  abort.signal.addEventListener('abort', () => arrivals.nudge(), { once: true });
  const reader = new AnswerReader(f.workflowId, f.mode, f.mayDecide);
  void readHistory(f.client, f.workflowId, abort.signal, (events) => arrivals.put({ events })).then(
    () => arrivals.put({ closed: true }),
    (error: unknown) => {
      if (!abort.signal.aborted) arrivals.put({ error });
    },
  );
  void readText(f.streams, f.workflowId, abort.signal, (entries) => arrivals.put({ entries }));
  f.reply?.then(
    (replied: unknown) => arrivals.put({ replied }),
    (refused: unknown) => arrivals.put({ refused }),
  );
  try {
    while (!abort.signal.aborted) {
      const a = await arrivals.take();
      if (!a) continue;
      if ('error' in a) throw a.error;
      if ('refused' in a) {
        // A turn that began and failed ends in history; a message refused before it began, here.
        if (reader.answer(f.key)) continue;
        yield [
          ...f.writer.write({ key: f.key, messageId: `${f.key}:answer`, status: 'failed', parts: [] }),
          { type: 'error', errorText: f.describe?.(a.refused) ?? String(a.refused) },
          ...f.writer.finish('error'),
        ];
        return;
      }
      if ('replied' in a) {
        // A message answered within another's turn (it interrupted it and was merged) has no turn of its own: its reply is the answer.
        if (reader.answer(f.key)) continue;
        // History may not have shown the turn yet: a moment for it, then the reply stands for the answer.
        if (!a.waited) {
          const again = { replied: a.replied, waited: true };
          setTimeout(() => arrivals.put(again), REPLY_GRACE_MS).unref();
          continue;
        }
        const output = (a.replied as { output?: unknown } | undefined)?.output;
        const text = typeof output === 'string' ? output : JSON.stringify(output ?? '');
        yield [
          ...f.writer.write({
            key: f.key,
            messageId: `${f.key}:answer`,
            status: 'answered',
            parts: [
              { kind: 'step', id: 'answer' },
              { kind: 'text', id: 'answer', text, done: true },
            ],
          }),
          ...f.writer.finish('stop'),
        ];
        return;
      }
      if ('closed' in a) {
        // The workflow closed (terminated, timed out, ended) without answering: nothing more will come.
        const view = reader.answer(f.key)?.view ?? {
          key: f.key,
          messageId: `${f.key}:answer`,
          status: 'failed' as const,
          parts: [],
        };
        yield [
          ...f.writer.write(view),
          { type: 'error', errorText: `${f.workflowId} closed before answering ${f.key}` },
          ...f.writer.finish('error'),
        ];
        return;
      }
      if ('events' in a) reader.read(a.events);
      else for (const { delta } of a.entries) reader.delta(delta);
      const answer = reader.answer(f.key);
      if (!answer) continue;
      const chunks = f.writer.write(answer.view);
      const view = answer.view;
      if (view.status === 'failed') {
        yield [
          ...chunks,
          {
            type: 'error',
            errorText: `${view.failure?.type ?? 'Error'}: ${view.failure?.message ?? 'the answer failed'}`,
          },
          ...f.writer.finish('error'),
        ];
        return;
      }
      if (view.status === 'answered') return void (yield [...chunks, ...f.writer.finish('stop')]);
      if (waitsForCaller(view)) return void (yield [...chunks, ...f.writer.finish('tool-calls')]);
      if (chunks.length > 0) yield chunks;
    }
  } finally {
    abort.abort();
    f.signal.removeEventListener('abort', stop);
  }
}

/** The workflow's history from its first run, then each new event as it happens (long-polling), across continue-as-new. */
async function readHistory(
  client: Client,
  workflowId: string,
  signal: AbortSignal,
  arrive: (events: HistoryEvent[]) => void,
): Promise<void> {
  let execution = { workflowId, runId: await firstRunOfChain(client.workflow, workflowId) };
  let nextPageToken: Uint8Array | undefined;
  const codecs = client.options.loadedDataConverter.payloadCodecs;
  const pages = new HistoryPages(client.workflowService);
  while (!signal.aborted) {
    const response = await withCallsAborted(client.connection, signal, () =>
      pages.next({
        namespace: client.options.namespace,
        execution,
        nextPageToken,
        waitNewEvent: true,
        skipArchival: true,
      }),
    );
    if (response.history) await decodeHistory(response.history, codecs);
    const events = response.history?.events ?? [];
    if (events.length > 0) arrive(events);
    const next = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
    if (next) {
      execution = { workflowId, runId: next };
      nextPageToken = undefined;
    } else if (response.nextPageToken?.length) nextPageToken = response.nextPageToken;
    else if (events.some(closes)) return;
  }
}

function closes(e: HistoryEvent): boolean {
  return !!(
    e.workflowExecutionCompletedEventAttributes ||
    e.workflowExecutionFailedEventAttributes ||
    e.workflowExecutionCanceledEventAttributes ||
    e.workflowExecutionTerminatedEventAttributes ||
    e.workflowExecutionTimedOutEventAttributes
  );
}

/** The workflow's text from the oldest the transport keeps; without a transport the answers still come, whole, from history. */
async function readText(
  streams: StreamTransport,
  topic: string,
  signal: AbortSignal,
  arrive: (entries: StreamEntry[]) => void,
): Promise<void> {
  try {
    for await (const entries of streams.read(topic, undefined, signal)) arrive(entries);
  } catch {
    // History still gives every answer.
  }
}
