/**
 * Conversations: send a message (the first one starts the conversation, so a stateless caller needs
 * only an id), read where a conversation is and its turns, end it.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { WorkflowType } from '../common/messages';
import { secured } from './access';
import { inArrivalOrder, takePlace } from './arrival';
import { Permission } from './auth';
import type { ServiceApp, ServiceContext } from './context';
import { kindOf, mustBeConversation, notA } from './kinds';
import { jsonBody, problems } from './openapi';
import { IdempotencyKeySchema, idParam } from './schemas';
import { tenantWorkflowId } from './tenancy';
import { HttpProblem } from './problems';
import { derivedMessageKey, lookupMessage } from './messageKeys';
import {
  accepted202,
  failedTurnProblem,
  followPath,
  notTaken,
  streamedReply,
  turnProblem,
} from './conversationAnswers';

const ConversationIdParam = idParam('The conversation id (its workflow id)');

const SendMessageSchema = z
  .object({
    agent: z
      .string()
      .min(1)
      .openapi({ description: 'The agent that answers the first message; later messages go to the active agent' }),
    message: z.string().min(1).openapi({ description: "The user's message" }),
    idempotencyKey: IdempotencyKeySchema.optional().openapi({
      description: 'Sent again, the same key gets the first reply and the turn does not run again',
    }),
    midTurn: z.enum(['enqueue', 'reject', 'interrupt', 'rollback']).optional().openapi({
      description:
        "What the message does when it arrives while another is answered (default: the conversation's midTurn option): wait its turn, be refused (409), interrupt the running turn and be answered with it, or roll it back and be answered instead",
    }),
    stream: z.boolean().optional().openapi({
      description:
        'Answer with Server-Sent Events (as `Accept: text/event-stream` does): `text` and `text_reset` events as the answer forms, then `reply`',
    }),
  })
  .strict()
  .openapi('SendMessage');

const ReplySchema = z
  .object({})
  .passthrough()
  .openapi('ConversationReply', { description: "The reply: output, the agent that answered, the turn's handoffs" });
const AnyObject = z.object({}).passthrough();
const AcceptedSchema = z
  .object({
    status: z.enum(['queued', 'answering']).openapi({ description: 'Waiting for its turn, or being answered' }),
    idempotencyKey: z.string(),
    turn: z.number().int().optional(),
    follow: z.string().openapi({ description: 'Where to follow it: GET it for the reply' }),
  })
  .openapi('MessageAccepted');

const sendRoute = createRoute({
  operationId: 'sendMessage',
  method: 'post',
  path: '/v1/conversations/{id}/messages',
  tags: ['conversations'],
  summary: 'Send a message and get the reply; starts the conversation when it does not exist',
  ...secured(
    Permission.START,
    'A message is answered once, however often it is sent: by its `idempotencyKey` (or an `Idempotency-Key` header); without one, by a key derived from the caller, the conversation, the agent, the message and `midTurn`, ' +
      'so the same request sent again while its message waits or is being answered is that message (the same text sent once it was answered is a new one: give each message a key of its own to be sure). ' +
      "Every answer carries the key in an `Idempotency-Key` header. A turn that takes longer than the service's `replyWaitMs` (25 s unless configured: a model, a delegation, an approval) answers 202 with the key, " +
      'and `Location` where to follow it (`GET /v1/conversations/{id}/messages/{key}`); a conversation that did not take the message within the request deadline answers 503 with the key to send it again with. ' +
      'A message to a conversation that ended, or to an id that is a chain (`handoffRun`) rather than a conversation, is refused with 409; ' +
      'a message over the size limits with 413, before it is sent, so the id stays usable; a turn that fails answers 422 with the typed error, and the conversation goes on as before it. ' +
      'A message refused by the `reject` mid-turn policy answers 409 (`ConversationBusyError`); one whose turn was rolled back for a later message 409 (`MessageRolledBackError`). ' +
      'With `"stream": true` or `Accept: text/event-stream` the answer comes as Server-Sent Events once the conversation took the message: `text` (`{call, offset, text, …}`) and `text_reset` as it forms (a call an interrupt stopped is reset, reason `stopped`), a `: keepalive` comment every 15 s while the turn waits, then `reply`, or `error` with problem details; applying the text events in order ends with the reply\'s text.',
  ),
  request: {
    params: ConversationIdParam,
    headers: z.object({ 'idempotency-key': IdempotencyKeySchema.optional() }),
    body: { ...jsonBody(SendMessageSchema, 'The message'), required: true },
  },
  responses: {
    200: {
      description: 'The reply (or, streamed, the answer as it forms and then the reply)',
      content: { 'application/json': { schema: ReplySchema }, 'text/event-stream': { schema: z.string() } },
    },
    202: jsonBody(AcceptedSchema, 'Taken, still being answered: follow it at `Location`'),
    ...problems(400, 401, 403, 404, 409, 413, 422, 503),
  },
});

const followRoute = createRoute({
  operationId: 'getMessageReply',
  method: 'get',
  path: '/v1/conversations/{id}/messages/{key}',
  tags: ['conversations'],
  summary: 'A message by its idempotency key: its reply once answered',
  ...secured(
    Permission.READ,
    "The reply of the message sent with `key` (200), 202 while it waits or is answered (with `Retry-After`), the turn's typed error when it failed (422, or 409 for a refused or rolled-back message). " +
      '`wait` (seconds, at most 25) holds the request until the reply comes or the time is up. 404 when the conversation remembers no message with the key (it keeps its last `idempotencyWindow` replies).',
  ),
  request: {
    params: ConversationIdParam.extend({
      key: IdempotencyKeySchema.openapi({
        description: "The message's idempotency key (the `Idempotency-Key` its sending answered with)",
      }),
    }),
    query: z.object({ wait: z.coerce.number().min(0).max(25).optional() }),
  },
  responses: {
    200: jsonBody(ReplySchema, 'The reply'),
    202: jsonBody(AcceptedSchema, 'Waiting or being answered'),
    ...problems(400, 401, 403, 404, 409, 422, 503),
  },
});

const getRoute = createRoute({
  operationId: 'getConversation',
  method: 'get',
  path: '/v1/conversations/{id}',
  tags: ['conversations'],
  summary: 'Where a conversation is (the active agent, what waits) and its turns',
  ...secured(Permission.READ),
  request: { params: ConversationIdParam },
  responses: { 200: jsonBody(AnyObject, 'The conversation'), ...problems(400, 401, 403, 404, 409, 503) },
});

const endRoute = createRoute({
  operationId: 'endConversation',
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
    const identity = c.get('identity');
    tenantWorkflowId(identity, id, true, 'id');
    if (ctx.agents && !ctx.agents.includes(body.agent)) {
      throw new HttpProblem(400, 'Invalid message', 'The message is not valid.', [
        { path: 'agent', message: `unknown agent "${body.agent}" (the workers serve: ${ctx.agents.join(', ')})` },
      ]);
    }
    const given = body.idempotencyKey ?? c.req.valid('header')['idempotency-key'];
    let key = given;
    const checks = () =>
      ctx.baton.client.connection.withDeadline(Date.now() + ctx.temporalTimeoutMs, async () => {
        // The update and the start that goes with it, as they would be sent: refused here, nothing reaches the conversation.
        await ctx.payloadLimit.check('The message', {
          start: { agent: body.agent },
          message: { message: body.message, idempotencyKey: given ?? 'x'.repeat(DERIVED_KEY_CHARS) },
        });
        const kind = await kindOf(ctx, id);
        if (kind !== undefined && kind !== WorkflowType.CONVERSATION) throw notA('conversation', id, kind);
        key ??= await derivedMessageKey(ctx, {
          identity: c.get('identity').name,
          conversation: id,
          agent: body.agent,
          message: body.message,
          ...(body.midTurn ? { midTurn: body.midTurn } : {}),
        });
      });
    const options = () => ({ idempotencyKey: key!, ...(body.midTurn ? { midTurn: body.midTurn } : {}) });
    const streamed = body.stream || /text\/event-stream/i.test(c.req.header('accept') ?? '');
    let from: string | undefined;
    let taken!: () => void;
    const accepted = new Promise<void>((resolve) => (taken = resolve));
    const reply = inArrivalOrder(
      c.get('place') ?? takePlace(id),
      async () => {
        await checks();
        if (streamed) from = await ctx.baton.streams.last(id).catch(() => undefined);
      },
      // A new conversation is the caller's tenant's (its id must say so); an existing one was checked to be.
      () =>
        ctx.baton
          .conversation(body.agent, {
            id: tenantWorkflowId(identity, id, true, 'id'),
            ...(identity.tenant !== undefined ? { options: { tenant: identity.tenant } } : {}),
          })
          .send(body.message, { ...options(), taken }),
    );
    reply.catch(() => undefined);
    // Answered, refused, or taken in time; else the caller sends it again with its key, and is answered once.
    const first = await Promise.race([
      reply.then(
        () => 'settled' as const,
        () => 'settled' as const,
      ),
      accepted.then(() => 'taken' as const),
      delay(ctx.temporalTimeoutMs + 5_000).then(() => 'late' as const),
    ]);
    if (first === 'late') return notTaken(c, id, key);
    if (key) c.header('idempotency-key', key);
    if (streamed) {
      // Taken, or settled without being taken (refused, or answered from what the conversation remembers).
      if (first === 'settled') await reply.catch((err: unknown) => Promise.reject(turnProblem(err)));
      return streamedReply(c, ctx, id, key!, from, reply);
    }
    const done =
      first === 'settled'
        ? 'replied'
        : await Promise.race([
            reply.then(
              () => 'replied' as const,
              () => 'replied' as const,
            ),
            delay(ctx.replyWaitMs).then(() => 'waiting' as const),
          ]);
    if (done === 'waiting') return accepted202(c, ctx, id, key!);
    try {
      return c.json((await reply) as unknown as Record<string, never>, 200);
    } catch (err) {
      throw turnProblem(err);
    }
  });

  app.openapi(followRoute, async (c) => {
    const { id, key } = c.req.valid('param');
    const until = Date.now() + (c.req.valid('query').wait ?? 0) * 1000;
    for (;;) {
      const found = await lookupMessage(ctx, id, { idempotencyKey: key });
      if (found === undefined) throw new HttpProblem(404, 'Not found', `no conversation ${id}`);
      // A chain (or another workflow) registers no message query: say what it is, not "try again".
      if (found === 'unknown') await mustBeConversation(ctx, id);
      if (found === 'unknown')
        throw new HttpProblem(
          503,
          'Unavailable',
          `conversation ${id} cannot be asked about its messages now (no worker answers it, or one from before it could); try again shortly`,
        );
      const m = found.message;
      if (!m)
        throw new HttpProblem(
          404,
          'Not found',
          `conversation ${id} remembers no message with the key ${key} (it keeps its last replies only)`,
        );
      c.header('idempotency-key', key);
      if (m.status === 'answered') return c.json(m.reply as unknown as Record<string, never>, 200);
      if (m.status === 'failed') throw failedTurnProblem(m.failure);
      if (Date.now() >= until) {
        c.header('retry-after', '1');
        return c.json(
          {
            status: m.status,
            idempotencyKey: key,
            ...(m.turn !== undefined ? { turn: m.turn } : {}),
            follow: followPath(id, key),
          },
          202,
        );
      }
      await delay(Math.min(500, until - Date.now()));
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

/** The length of a derived key, for the size check made before it is known. */
const DERIVED_KEY_CHARS = 64;
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref?.());
