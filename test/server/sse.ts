/** A Server-Sent Events reader for the tests: the events of one connection, and a way to drop it. */

/** One event as the stream sent it. */
export interface SseEvent {
  id?: string;
  event: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data: any;
}

/** An open stream. */
export interface SseConnection {
  status: number;
  /** The events, as they arrive, until the server closes the stream or `close()` is called. */
  events: AsyncGenerator<SseEvent>;
  /** Drop the connection, as a client that goes away does. */
  close(): void;
}

/** Connect to `url` with `headers` (a bearer token, a `Last-Event-ID`); a `body` is POSTed as JSON. */
export async function connectSse(url: string, headers: Record<string, string>, body?: unknown): Promise<SseConnection> {
  const abort = new AbortController();
  const post = body !== undefined ? { method: 'POST', body: JSON.stringify(body) } : {};
  const res = await fetch(url, {
    headers: {
      accept: 'text/event-stream',
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    signal: abort.signal,
    ...post,
  });
  async function* events(): AsyncGenerator<SseEvent> {
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event: SseEvent = { event: 'message', data: undefined };
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line === '' || line.startsWith(':')) continue;
            const [field, ...rest] = line.split(':');
            const value = rest.join(':').replace(/^ /, '');
            if (field === 'data') data.push(value);
            else if (field === 'event') event.event = value;
            else if (field === 'id') event.id = value;
          }
          if (data.length === 0) continue;
          event.data = JSON.parse(data.join('\n'));
          yield event;
        }
      }
    } catch (err) {
      if (!abort.signal.aborted) throw err;
    }
  }
  return { status: res.status, events: events(), close: () => abort.abort() };
}
