/**
 * The AI SDK's UI message stream protocol (v1), as baton's HTTP service speaks it: the chunks a
 * `useChat` client reads, each sent as a Server-Sent Event `data: <json>`, the stream closed by
 * `data: [DONE]`, under the protocol's headers. The shapes mirror the `ai` package's
 * `UIMessageChunk` (test/server/uiStream.test.ts checks them against its own parser), written
 * here so the service needs no AI SDK at run time.
 */

/** Where a chunk comes from in baton, on the parts that carry provider metadata. */
export type BatonPartMetadata = { baton: { part: string } };

/** A chunk of the UI message stream protocol, as baton sends it. */
export type UiChunk =
  | { type: 'start'; messageId?: string; messageMetadata?: unknown }
  | { type: 'start-step' }
  | { type: 'finish-step' }
  | { type: 'finish'; finishReason?: 'stop' | 'tool-calls' | 'error' | 'other'; messageMetadata?: unknown }
  | { type: 'text-start'; id: string; providerMetadata?: BatonPartMetadata }
  | { type: 'text-delta'; id: string; delta: string }
  | { type: 'text-end'; id: string }
  | { type: 'tool-input-available'; toolCallId: string; toolName: string; input: unknown; title?: string }
  | { type: 'tool-approval-request'; approvalId: string; toolCallId: string }
  | { type: 'tool-output-available'; toolCallId: string; output: unknown }
  | { type: 'tool-output-error'; toolCallId: string; errorText: string }
  | { type: 'tool-output-denied'; toolCallId: string }
  | { type: `data-${string}`; id?: string; data: unknown; transient?: boolean }
  | { type: 'error'; errorText: string };

/** The headers a UI message stream answers with (`x-vercel-ai-ui-message-stream: v1` names the protocol). */
export const UI_STREAM_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-vercel-ai-ui-message-stream': 'v1',
  'x-accel-buffering': 'no',
};

/** One chunk as the event the protocol sends. */
export function sseOf(chunk: UiChunk): string {
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/** What closes the stream. */
export const SSE_DONE = 'data: [DONE]\n\n';

/** A comment that keeps proxies from closing a stream while a turn waits (a model, a person). */
export const SSE_KEEPALIVE = ': keep-alive\n\n';
