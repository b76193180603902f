/**
 * Conversations: send a message (the first one starts the conversation, so a stateless caller needs
 * only an id), read where a conversation is and its turns, end it.
 */
import { randomUUID } from 'node:crypto';
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { SendOptions } from '../client/conversation';
import { streamMessage } from '../streams/message';
import { stoppedCallsOf } from '../client/stoppedCalls';
import { BatonError, InputTooLargeError, InvalidRunInputError, UserError } from '../common/errors';
import { WorkflowType } from '../common/messages';
import { secured } from './access';
import { inArrivalOrder } from './arrival';
import { Permission } from './auth';
import type { ServiceApp, ServiceContext } from './context';
import { kindOf, mustBeConversation, notA } from './kinds';
import { jsonBody, problems } from './openapi';
import { idParam } from './schemas';
import { fieldError, HttpProblem, problemBody, toProblem } from './problems';

const ConversationIdParam = idParam('The conversation id (its workflow id)');

const SendMessageSchema = z
  .object({
    agent: z.string().min(1).openapi({ description: 'The agent that answers the first message; later messages go to the active agent' }),
    message: z.string().min(1).openapi({ description: "The user's message" }),
    idempotencyKey: z.string().min(1).max(200).optional().openapi({ description: 'Sent again, the same key gets the first reply and the turn does not run again' }),
    midTurn: z.enum(['enqueue', 'reject', 'interrupt', 'rollback']).optional().openapi({ description: "What the message does when it arrives while another is answered (default: the conversation's midTurn option): wait its turn, be refused (409), interrupt the running turn and be answered with it, or roll it back and be answered instead" }),
    stream: z.boolean().optional().openapi({ description: 'Answer with Server-Sent Events (as `Accept: text/event-stream` does): `text` and `text_reset` events as the answer forms, then `reply`' }),
  })
  .strict()
  .openapi('SendMessage');

const ReplySchema = z.object({}).passthrough().openapi('ConversationReply', { description: "The reply: output, the agent that answered, the turn's handoffs" });
const AnyObject = z.object({}).passthrough();

const sendRoute = createRoute({
  method: 'post',
  path: '/v1/conversations/{id}/messages',
  tags: ['conversations'],
  summary: 'Send a message and get the reply; starts the conversation when it does not exist',
  ...secured(
    Permission.START,
    'An `Idempotency-Key` header stands in for `idempotencyKey`. A message to a conversation that ended, or to an id that is a chain (`handoffRun`) rather than a conversation, is refused with 409; ' +
      'a message over the size limits with 413, before it is sent, so the id stays usable; a turn that fails answers 422 with the typed error, and the conversation goes on as before it. ' +
      'A message refused by the `reject` mid-turn policy answers 409 (`ConversationBusyError`); one whose turn was rolled back for a later message 409 (`MessageRolledBackError`). ' +
      'With `"stream": true` or `Accept: text/event-stream` the answer comes as Server-Sent Events: `text` (`{call, offset, text, …}`) and `text_reset` as it forms, then `reply`, or `error` with problem details; applying the text events in order ends with the reply\'s text.',
  ),
  request: {
    params: ConversationIdParam,
    headers: z.object({ 'idempotency-key': z.string().min(1).max(200).optional() }),
    body: { ...jsonBody(SendMessageSchema, 'The message'), required: true },
  },
  responses: {
    200: { description: 'The reply (or, streamed, the answer as it forms and then the reply)', content: { 'application/json': { schema: ReplySchema }, 'text/event-stream': { schema: z.string() } } },
    ...problems(400, 401, 403, 404, 409, 413, 422, 503),
  },
});

const getRoute = createRoute({
  method: 'get',
  path: '/v1/conversations/{id}',
  tags: ['conversations'],
  summary: 'Where a conversation is (the active agent, what waits) and its turns',
  ...secured(Permission.READ),
  request: { params: ConversationIdParam },
  responses: { 200: jsonBody(AnyObject, 'The conversation'), ...problems(400, 401, 403, 404, 409, 503) },
});

const endRoute = createRoute({
  method: 'post',
  path: '/v1/conversations/{id}/end',
  tags: ['conversations'],
  summary: 'End a conversation once the messages it took are answered',
  ...secured(Permission.START),
  request: { params: ConversationIdParam },
  responses: { 200: jsonBody(AnyObject, "The conversation's result"), ...problems(400, 401, 403, 404, 409, 503) },
});

/** Register the conversation routes on `app`. */
export function conversationRoutes(app: ServiceApp, ctx: ServiceContext): void {
  // Reading and ending never start a conversation, so the agent a handle is made with is not used.
  const existing = (id: string) => ctx.baton.conversation(ctx.agents?.[0] ?? 'agent', { id });

  app.openapi(sendRoute, async (c) => {
    const { id } = c.req.valid('param');
    const body = c.req.valid('json');
    if (ctx.agents && !ctx.agents.includes(body.agent)) {
      throw new HttpProblem(400, 'Invalid message', 'The message is not valid.', [{ path: 'agent', message: `unknown agent "${body.agent}" (the workers serve: ${ctx.agents.join(', ')})` }]);
    }
    const key = body.idempotencyKey ?? c.req.valid('header')['idempotency-key'];
    const checks = async () => {
      // The update and the start that goes with it, as they would be sent: refused here, nothing reaches the conversation.
      await ctx.payloadLimit.check('The message', { start: { agent: body.agent }, message: { message: body.message, idempotencyKey: key } });
      const kind = await kindOf(ctx, id);
      if (kind !== undefined && kind !== WorkflowType.CONVERSATION) throw notA('conversation', id, kind);
    };
    const options = { ...(key ? { idempotencyKey: key } : {}), ...(body.midTurn ? { midTurn: body.midTurn } : {}) };
    if (body.stream || /text\/event-stream/i.test(c.req.header('accept') ?? '')) return streamedReply(c, ctx, id, body, options, checks);
    const send = () => ctx.baton.conversation(body.agent, { id }).send(body.message, options);
    try {
      const reply = await inArrivalOrder(id, checks, send);
      return c.json(reply as unknown as Record<string, never>, 200);
    } catch (err) {
      throw turnProblem(err);
    }
  });

  app.openapi(getRoute, async (c) => {
    const { id } = c.req.valid('param');
    await mustBeConversation(ctx, id);
    const chat = existing(id);
    const [status, turns] = await Promise.all([chat.status(), chat.history()]);
    return c.json({ id: chat.id, ...status, turns } as unknown as Record<string, never>, 200);
  });

  app.openapi(endRoute, async (c) => {
    const { id } = c.req.valid('param');
    await mustBeConversation(ctx, id);
    const result = await existing(id).end();
    return c.json(result as unknown as Record<string, never>, 200);
  });
}

/** A message answered as Server-Sent Events: its text as it forms, then the reply (or the problem). */
async function streamedReply(c: Context, ctx: ServiceContext, id: string, body: { agent: string; message: string }, options: SendOptions, checks: () => Promise<void>): Promise<Response> {
  const key = options.idempotencyKey ?? randomUUID();
  let from: string | undefined;
  let sending!: () => void;
  const sent = new Promise<void>((resolve) => (sending = resolve));
  const reply = inArrivalOrder(
    id,
    async () => {
      await checks();
      from = await ctx.baton.streams.last(id).catch(() => undefined);
    },
    () => {
      sending();
      return ctx.baton.conversation(body.agent, { id }).send(body.message, { ...options, idempotencyKey: key });
    },
  );
  // A message refused before it was sent is answered as a problem, not as a stream.
  await Promise.race([sent, reply]).catch((err: unknown) => Promise.reject(turnProblem(err)));
  return streamSSE(c, async (stream) => {
    const abort = new AbortController();
    stream.onAbort(() => abort.abort());
    try {
      for await (const item of streamMessage(ctx.baton.streams, id, key, from, reply, { signal: abort.signal, stopped: stoppedCallsOf(ctx.baton.client, id) })) {
        await stream.writeSSE({ event: item.kind, data: JSON.stringify(item.kind === 'reply' ? item.reply : item) });
      }
    } catch (err) {
      if (abort.signal.aborted) return;
      await stream.writeSSE({ event: 'error', data: JSON.stringify(problemBody(toProblem(turnProblem(err)))) }).catch(() => undefined);
    }
  });
}

/** A refused message or a failed turn as an HTTP answer; anything else as the service maps it. */
function turnProblem(err: unknown): unknown {
  if (err instanceof InvalidRunInputError) return new HttpProblem(400, 'Invalid message', 'The message is not valid.', err.problems.map(fieldError));
  if (err instanceof InputTooLargeError) return toProblem(err);
  if (err instanceof UserError) return new HttpProblem(409, 'Refused', err.message);
  if (err instanceof BatonError) return new HttpProblem(422, 'Turn failed', `${err.name}: ${err.message}`);
  return err;
}
