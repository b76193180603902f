/**
 * The AI SDK's own client in Node, as `useChat` runs it: `Chat` from `@ai-sdk/react` (the class
 * `useChat` wraps) over baton's `DefaultChatTransport` (`batonChatTransport`) pointed at its route, sending the approvals
 * the user answered on its own (`lastAssistantMessageIsCompleteWithApprovalResponses`).
 */
import { Chat } from '@ai-sdk/react';
import {
  lastAssistantMessageIsCompleteWithApprovalResponses,
  parseJsonEventStream,
  readUIMessageStream,
  uiMessageChunkSchema,
  validateUIMessages,
  type UIMessage,
  type UIMessageChunk,
} from 'ai';
import { expect } from 'vitest';
import { batonChatTransport, withoutReplacedText } from '../../../src/react';
import { waitFor } from '../../helpers/wait';

/** A chat of `token`'s on the conversation `id`, at the service `url` (through baton's transport: the SDK's `DefaultChatTransport`, configured). */
export function chatAt(url: string, token: string, id: string, body: { agent?: string } = {}): Chat<UIMessage> {
  return new Chat<UIMessage>({
    id,
    transport: batonChatTransport({ url, token, ...body }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
}

/** Wait until the chat is done with its requests (the automatic ones too), failing on its error. */
export async function settled(chat: Chat<UIMessage>): Promise<UIMessage[]> {
  await waitFor(
    async () => chat.status,
    (s) => s === 'ready' || s === 'error',
    60_000,
  );
  if (chat.error) throw chat.error;
  // The messages are what the SDK's own validator accepts.
  await validateUIMessages({ messages: chat.messages });
  return chat.messages;
}

/** The last assistant message. */
export function lastAnswer(messages: UIMessage[]): UIMessage {
  const m = [...messages].reverse().find((x) => x.role === 'assistant');
  expect(m, 'an assistant message').toBeDefined();
  return m!;
}

/** The text a chat shows of a message: its text parts but those baton replaced, joined. */
export function textOf(message: UIMessage): string {
  return withoutReplacedText(message)
    .parts.flatMap((p) => (p.type === 'text' ? [p.text] : []))
    .join('');
}

/** Every text the message's text parts hold, those replaced too. */
export function allTextOf(message: UIMessage): string {
  return message.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
}

/** A tool part (the SDK's `tool-<name>` part) by tool name. */
export function toolPart(message: UIMessage, name: string) {
  return message.parts.find((p) => p.type === `tool-${name}`) as
    | (UIMessage['parts'][number] & {
        state: string;
        toolCallId: string;
        input?: unknown;
        output?: unknown;
        approval?: { id: string; approved?: boolean };
      })
    | undefined;
}

/** A raw request to the route, its stream parsed by the SDK's own parser: the chunks, and the message they make. */
export async function post(
  url: string,
  token: string,
  body: unknown,
  path = '/v1/ui/conversations',
): Promise<{ status: number; headers: Headers; chunks: UIMessageChunk[]; message?: UIMessage; problem?: unknown }> {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok || !res.body)
    return { status: res.status, headers: res.headers, chunks: [], problem: await res.json().catch(() => undefined) };
  return { status: res.status, headers: res.headers, ...(await readChunks(res.body)) };
}

/** A stream's chunks (each checked by the SDK's chunk schema) and the message `readUIMessageStream` makes of them. */
export async function readChunks(
  body: ReadableStream<Uint8Array>,
): Promise<{ chunks: UIMessageChunk[]; message?: UIMessage }> {
  const chunks: UIMessageChunk[] = [];
  const parsed = parseJsonEventStream({ stream: body, schema: uiMessageChunkSchema }).pipeThrough(
    new TransformStream({
      transform(part, controller) {
        if (!part.success) throw part.error;
        chunks.push(part.value);
        controller.enqueue(part.value);
      },
    }),
  );
  let message: UIMessage | undefined;
  for await (const m of readUIMessageStream({ stream: parsed })) message = m;
  return { chunks, ...(message ? { message } : {}) };
}

/** A user's message of one text part. */
export const userMessage = (id: string, text: string): UIMessage => ({
  id,
  role: 'user',
  parts: [{ type: 'text', text }],
});

/** The chat the service stores for conversation `id`, as `token` reads it. */
export async function storedMessages(url: string, token: string, id: string): Promise<UIMessage[]> {
  const res = await fetch(`${url}/v1/ui/conversations/${id}/messages`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return ((await res.json()) as { messages: UIMessage[] }).messages;
}

/** What a resumed stream of conversation `id` sends `token` until it has sent `n` keep-alive comments, or for 5 s. */
export async function resumedUntilKeptAlive(url: string, token: string, id: string, n: number): Promise<string> {
  const resumed = await fetch(`${url}/v1/ui/conversations/${id}/stream`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const reader = resumed.body!.getReader();
  let raw = '';
  for (const until = Date.now() + 5_000; Date.now() < until && (raw.match(/: keep-alive/g) ?? []).length < n;)
    raw += new TextDecoder().decode((await reader.read()).value);
  await reader.cancel();
  return raw;
}

/** `message` with the approval of its `tool` part answered as approved, as a client that answers it sends it. */
export function withApproval(message: UIMessage, tool: string, approvalId: string): UIMessage {
  const asked = {
    ...toolPart(message, tool)!,
    state: 'approval-responded',
    approval: { id: approvalId, approved: true },
  };
  return { ...message, parts: message.parts.map((p) => (p.type === `tool-${tool}` ? asked : p)) } as UIMessage;
}

/** A message's approval card (its `data-approval` part), if it has one. */
export function approvalCard(message: UIMessage): { data: Record<string, unknown> } | undefined {
  return message.parts.find((p) => p.type === 'data-approval') as { data: Record<string, unknown> } | undefined;
}
