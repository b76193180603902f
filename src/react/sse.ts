/**
 * Server-Sent Events read from a `fetch` body, so the bearer token goes in a header (an
 * `EventSource` cannot send one). Each event's name, data and id, as the HTML standard parses them.
 */

/** One event of the stream. */
export interface ServerSentEvent {
  event: string;
  data: string;
  /** Its id, to resume after with `Last-Event-ID`. */
  id?: string;
}

/** The events of `body`, as they come. */
export async function* readServerSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerSentEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      const blocks = buffer.replace(/\r\n?/g, '\n').split('\n\n');
      buffer = blocks.pop()!;
      for (const block of blocks) {
        const parsed = parseBlock(block);
        if (parsed) yield parsed;
      }
    }
  } finally {
    reader.releaseLock();
  }
}

/** An event block's fields; `undefined` for a block without data (a comment, a keep-alive). */
function parseBlock(block: string): ServerSentEvent | undefined {
  let event = 'message';
  let id: string | undefined;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    else if (field === 'id') id = value;
  }
  return data.length > 0 ? { event, data: data.join('\n'), ...(id !== undefined ? { id } : {}) } : undefined;
}
