/**
 * Following one conversation message live: the text of the model calls that answer it (its own
 * chain's and its specialists'), then its reply. The reply is the record: the text of the call that
 * gave it is settled to it, so a viewer ends with the reply's text whatever the stream carried.
 */
import { TextBoard, type TextChange } from './board';
import { Mailbox } from './mailbox';
import type { StreamEntry, StreamTransport } from './types';

/** What `chat.stream(message)` yields: the answer's text as it forms, then the reply. */
export type MessageStreamItem<Reply> = (TextChange & { at: string }) | { kind: 'reply'; reply: Reply };

type Arrival<Reply> = { entries: StreamEntry[] } | { reply: Reply } | { error: unknown };

/**
 * Follow the conversation `topic`'s text of the message `key` from the transport's position `from`
 * (taken before the message was sent: see `StreamTransport.last`) until `reply` settles.
 */
export async function* streamMessage<Reply extends { agent: string; output: unknown }>(
  streams: StreamTransport,
  topic: string,
  key: string,
  from: string | undefined,
  reply: Promise<Reply>,
  signal?: AbortSignal,
): AsyncGenerator<MessageStreamItem<Reply>> {
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
  })();
  void reply.then(
    (reply) => arrive({ reply }),
    (error: unknown) => arrive({ error }),
  );
  const board = new TextBoard();
  let last: { workflowId: string; call: string } | undefined;
  try {
    for (;;) {
      const a = await arrivals.take();
      if (!a) continue;
      if ('error' in a) throw a.error;
      if ('entries' in a) {
        for (const { delta } of a.entries) {
          if (delta.message !== key && !delta.merged?.includes(key)) continue;
          if (delta.workflowId === topic) last = { workflowId: delta.workflowId, call: delta.call };
          for (const change of board.delta(delta)) yield { ...change, at: new Date().toISOString() };
        }
        continue;
      }
      const { reply } = a;
      const recorded = typeof reply.output === 'string' ? reply.output : JSON.stringify(reply.output);
      const call = last ?? { workflowId: topic, call: `${reply.agent}#reply` };
      for (const change of board.settle(call.workflowId, call.call, reply.agent, recorded, { message: key })) yield { ...change, at: new Date().toISOString() };
      yield { kind: 'reply', reply };
      return;
    }
  } finally {
    abort.abort();
    signal?.removeEventListener('abort', stop);
  }
}
