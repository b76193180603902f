/**
 * Following one conversation message live: the text of the model calls that answer it (its own
 * chain's and its specialists'), then its reply. The reply is the record: the text of the call that
 * gave it is settled to it, and the text of each call an interrupt stopped meanwhile is dropped
 * (`text_reset`, `stopped`), so a viewer ends with the reply's text whatever the stream carried.
 */
import { TextBoard, type TextChange } from './board';
import { Mailbox } from './mailbox';
import type { StreamEntry, StreamTransport } from './types';

/** What `chat.stream(message)` yields: the answer's text as it forms, then the reply. */
export type MessageStreamItem<Reply> = (TextChange & { at: string }) | { kind: 'reply'; reply: Reply };

type Arrival<Reply> = { entries: StreamEntry[] } | { reply: Reply } | { error: unknown } | { textEnded: true };

/** How long, after the reply, the text written before it may take to arrive before the reply settles without it. */
const CATCH_UP_MS = 2_000;

/** A model call an interrupt stopped: the chain (workflow id) that made it and its name (`<agent>#<n>`). */
export interface StoppedCall {
  workflowId: string;
  agent: string;
  call: string;
}

/** The calls an interrupt stopped while the message was answered, as its turn's record says (`turn` is the reply's). */
export type StoppedCalls = (turn: number) => Promise<StoppedCall[]>;

/**
 * Follow the conversation `topic`'s text of the message `key` from the transport's position `from`
 * (taken before the message was sent: see `StreamTransport.last`) until `reply` settles. When more
 * than one call wrote text for the message, `stopped` says which of them an interrupt stopped.
 */
export async function* streamMessage<Reply extends { agent: string; output: unknown; turn: number }>(
  streams: StreamTransport,
  topic: string,
  key: string,
  from: string | undefined,
  reply: Promise<Reply>,
  options: { signal?: AbortSignal; stopped?: StoppedCalls } = {},
): AsyncGenerator<MessageStreamItem<Reply>> {
  const { signal } = options;
  const abort = new AbortController();
  const stop = () => abort.abort();
  signal?.addEventListener('abort', stop, { once: true });
  const arrivals = new Mailbox<Arrival<Reply>>();
  const arrive = (a: Arrival<Reply>) => arrivals.put(a);
  void (async () => {
    try {
      for await (const entries of streams.read(topic, from ?? '0-0', abort.signal)) arrive({ entries });
    } catch {
      // Without the transport the reply still comes, whole.
    }
    arrive({ textEnded: true });
  })();
  void reply.then(
    (reply) => arrive({ reply }),
    (error: unknown) => arrive({ error }),
  );
  const board = new TextBoard();
  // The conversation's own calls that wrote text for the message, in the order they first did.
  const calls: string[] = [];
  // The reply once it came, and the transport's newest cursor then: every call flushes its text before
  // it ends, so the text written for the message is all read once that cursor is.
  let replied: { reply: Reply; end: string | undefined } | undefined;
  const cursors = new Set<string>();
  let textEnded = false;
  let catchUp: ReturnType<typeof setTimeout> | undefined;
  try {
    for (;;) {
      const a = await arrivals.take();
      if (!a) continue;
      if ('error' in a) throw a.error;
      if ('entries' in a) {
        for (const { cursor, delta } of a.entries) {
          cursors.add(cursor);
          if (delta.message !== key && !delta.merged?.includes(key)) continue;
          if (delta.workflowId === topic && !calls.includes(delta.call)) calls.push(delta.call);
          for (const change of board.delta(delta)) yield { ...change, at: new Date().toISOString() };
        }
        if (!replied || (replied.end !== undefined && !cursors.has(replied.end))) continue;
      } else if ('textEnded' in a) {
        textEnded = true;
        if (!replied) continue;
      } else {
        replied = { reply: a.reply, end: await streams.last(topic).catch(() => undefined) };
        if (!textEnded && replied.end !== undefined && !cursors.has(replied.end)) {
          catchUp = setTimeout(() => arrive({ textEnded: true }), CATCH_UP_MS);
          continue;
        }
      }
      const { reply } = replied;
      const recorded = typeof reply.output === 'string' ? reply.output : JSON.stringify(reply.output);
      // A call may have been stopped only when more than one wrote text, or when the one that did is not the reply
      // (the answering call's text may not have come yet): the turn's record is read then.
      const only = calls.length === 1 ? board.textOf(topic, calls[0]!) : undefined;
      const stopped =
        calls.length > 1 || (only !== undefined && only !== recorded)
          ? await (options.stopped?.(reply.turn) ?? Promise.resolve([])).catch(() => [] as StoppedCall[])
          : [];
      for (const s of stopped) {
        for (const change of board.settle(s.workflowId, s.call, s.agent, '', { message: key, reason: 'stopped' }))
          yield { ...change, at: new Date().toISOString() };
      }
      const last = calls.filter((c) => !stopped.some((s) => s.workflowId === topic && s.call === c)).at(-1);
      const call = { workflowId: topic, call: last ?? `${reply.agent}#reply` };
      for (const change of board.settle(call.workflowId, call.call, reply.agent, recorded, { message: key }))
        yield { ...change, at: new Date().toISOString() };
      yield { kind: 'reply', reply };
      return;
    }
  } finally {
    clearTimeout(catchUp);
    abort.abort();
    signal?.removeEventListener('abort', stop);
  }
}
