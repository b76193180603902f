/**
 * The AI SDK's UI message stream protocol on the service: routes a `useChat` `DefaultChatTransport`
 * points at unchanged (`api: '/v1/ui/conversations'`), for conversations and for single chains.
 * A user message is sent to the conversation `id` (the first one starts it); approvals answered in
 * the chat become decisions under the caller's identity; the answer streams back as chunks.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { secured } from '../access';
import { Permission, type Identity } from '../auth';
import type { ServiceApp, ServiceContext } from '../context';
import { jsonBody, problems } from '../openapi';
import { idParam } from '../schemas';
import { mustBeCallersTenant } from '../tenancy';
import { answerRequest } from './answerRequest';
import { readAnswers, uiMessagesOf } from './messages';
import { ChatRequestSchema, type ChatRequest } from './request';
import { uiStreamResponse } from './response';
import { deadline, decider, follow, mustBe, type Kind } from './workflowCalls';
import { ChunkWriter } from './writer';

/** Options of the UI message stream routes. */
export interface UiStreamOptions {
  /** How often a stream that waits (for a model, a person) sends a keep-alive comment. @default 15 seconds */
  keepAliveMs?: number;
}

const PATHS: Record<Kind, string> = { conversation: '/v1/ui/conversations', chain: '/v1/ui/runs' };
const NOUN: Record<Kind, string> = { conversation: 'UiConversation', chain: 'UiRun' };
const STREAM = {
  200: {
    description: 'A UI message stream (`x-vercel-ai-ui-message-stream: v1`)',
    content: { 'text/event-stream': { schema: z.string() } },
  },
};
const MessagesSchema = z.object({ messages: z.array(z.object({}).passthrough()) }).openapi('UiMessages');

/** Whether a request to `path` is one of these routes, which wait as long as the answer takes. */
export function isUiStreamPath(path: string): boolean {
  return path.startsWith('/v1/ui/');
}

/** Register the UI message stream routes. */
export function uiStreamRoutes(app: ServiceApp, ctx: ServiceContext, options: UiStreamOptions = {}): void {
  const keepAliveMs = options.keepAliveMs ?? 15_000;
  for (const kind of ['conversation', 'chain'] as const) {
    const what = kind === 'conversation' ? 'conversation' : 'chain';
    app.openapi(
      createRoute({
        method: 'post',
        path: PATHS[kind],
        operationId: `chat${NOUN[kind]}`,
        tags: ['ui'],
        summary:
          kind === 'conversation'
            ? 'useChat: send a message to a conversation, or answer its approvals, and stream the answer'
            : 'useChat: start a chain with a message, or answer its approvals, and stream the answer',
        ...secured(
          Permission.START,
          `The AI SDK's chat request (\`id\`: the ${what}'s workflow id, \`messages\`, \`trigger\`) answered as a UI message stream. ` +
            (kind === 'conversation'
              ? 'A new user message is sent to the conversation (the first one starts it, at `agent`); '
              : 'A user message starts the chain at `agent` (the same request again follows it); ') +
            'an assistant message with approvals in state `approval-responded` decides them as the caller (who must be among their approvers). See docs/apps.md for the chunks.',
        ),
        request: { body: { ...jsonBody(ChatRequestSchema, 'The chat request'), required: true } },
        responses: { ...STREAM, ...problems(400, 401, 403, 404, 409, 413, 429, 503) },
      }),
      (async (c: Context) =>
        uiStreamResponse(
          await answerRequest(c, ctx, kind, (await c.req.json()) as ChatRequest),
          keepAliveMs,
          ctx.log,
        )) as never,
    );
    app.openapi(
      createRoute({
        method: 'get',
        path: `${PATHS[kind]}/{id}/stream`,
        operationId: `resume${NOUN[kind]}Stream`,
        tags: ['ui'],
        summary: `useChat's resume: the ${what}'s answer in progress, from its start`,
        ...secured(
          Permission.READ,
          `The answer being written, replayed from its beginning and followed to its end; 204 when none is. (DefaultChatTransport's \`reconnectToStream\`, \`useChat({ resume: true })\`.)`,
        ),
        request: { params: idParam(`The ${what} id`) },
        responses: { ...STREAM, 204: { description: 'No answer in progress' }, ...problems(401, 403, 404, 409, 503) },
      }),
      (async (c: Context) => {
        const id = c.req.param('id')!;
        await deadline(ctx, () => mustBeCallersTenant(ctx, c.get('identity') as Identity, id, kind));
        await mustBe(ctx, kind, id, true);
        const may = decider(c.get('identity') as Identity);
        const reader = await deadline(ctx, () => readAnswers(ctx.baton.client, id, kind, may));
        const last = reader.answers.at(-1)?.view;
        if (!last || last.status !== 'answering') return c.body(null, 204);
        return uiStreamResponse(follow(c, ctx, kind, id, last.key, new ChunkWriter()), keepAliveMs, ctx.log);
      }) as never,
    );
    app.openapi(
      createRoute({
        method: 'get',
        path: `${PATHS[kind]}/{id}/messages`,
        operationId: `get${NOUN[kind]}Messages`,
        tags: ['ui'],
        summary: `The ${what} as the AI SDK's UIMessage[], from its history`,
        ...secured(
          Permission.READ,
          'Each user message and the assistant message answering it, as the stream leaves them (text as history records it): load them into `useChat({ messages })` to show the chat again.',
        ),
        request: { params: idParam(`The ${what} id`) },
        responses: { 200: jsonBody(MessagesSchema, 'The messages'), ...problems(401, 403, 404, 409, 503) },
      }),
      (async (c: Context) => {
        const id = c.req.param('id')!;
        await deadline(ctx, () => mustBeCallersTenant(ctx, c.get('identity') as Identity, id, kind));
        await mustBe(ctx, kind, id, true);
        const reader = await deadline(ctx, () =>
          readAnswers(ctx.baton.client, id, kind, decider(c.get('identity') as Identity)),
        );
        return c.json({ messages: uiMessagesOf(reader.answers.map((a) => a.view)) }, 200);
      }) as never,
    );
  }
}
