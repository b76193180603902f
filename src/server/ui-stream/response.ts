/**
 * A UI message stream as an HTTP response: the chunks as Server-Sent Events under the protocol's
 * headers, a keep-alive comment whenever the stream has been quiet for a while (a turn waiting for
 * a model or a person), and `[DONE]` at the end. A client that leaves stops the following.
 */
import { displayText } from '../../common/display';
import { SSE_DONE, SSE_KEEPALIVE, sseOf, UI_STREAM_HEADERS, type UiChunk } from './chunks';

/** What a route streams: the chunks, and how to stop producing them. */
export interface UiStream {
  chunks: AsyncIterable<UiChunk[]>;
  abort: AbortController;
}

/** The response streaming `stream`. */
export function uiStreamResponse(
  stream: UiStream,
  keepAliveMs: number,
  log: (message: string, error?: unknown) => void,
): Response {
  const encoder = new TextEncoder();
  let quiet: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (text: string) => {
        if (closed) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          closed = true;
        }
        clearTimeout(quiet);
        if (!closed) quiet = setTimeout(() => send(SSE_KEEPALIVE), keepAliveMs);
      };
      send(': stream-open\n\n');
      try {
        for await (const batch of stream.chunks) for (const chunk of batch) send(sseOf(chunk));
      } catch (err) {
        if (!stream.abort.signal.aborted) {
          log('a UI message stream stopped', err);
          send(
            sseOf({
              type: 'error',
              errorText: displayText(err instanceof Error ? `${err.name}: ${err.message}` : String(err)),
            }),
          );
        }
      } finally {
        send(SSE_DONE);
        clearTimeout(quiet);
        if (!closed) controller.close();
        closed = true;
      }
    },
    cancel() {
      closed = true;
      clearTimeout(quiet);
      stream.abort.abort();
    },
  });
  return new Response(body, { status: 200, headers: UI_STREAM_HEADERS });
}
