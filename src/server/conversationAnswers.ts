/**
 * How the conversation routes answer a message that is not simply replied to: its text streamed as
 * Server-Sent Events, 202 with where to follow it while it is answered, 503 when the conversation
 * did not take it in time, and a refused message or a failed turn as a problem.
 */
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { ConversationReply } from '../common/conversation';
import { BatonError, InputTooLargeError, InvalidRunInputError, UserError } from '../common/errors';
import { stoppedCallsOf } from '../client/stoppedCalls';
import { streamMessage } from '../streams/message';
import type { ServiceContext } from './context';
import { lookupMessage } from './messageKeys';
import { fieldError, HttpProblem, problemBody, sendProblem, toProblem } from './problems';

/** A message the conversation took, answered as Server-Sent Events: its text as it forms, then the reply (or the problem). */
export function streamedReply(
  c: Context,
  ctx: ServiceContext,
  id: string,
  key: string,
  from: string | undefined,
  reply: Promise<ConversationReply<unknown>>,
): Response {
  return streamSSE(c, async (stream) => {
    const abort = new AbortController();
    stream.onAbort(() => abort.abort());
    // A turn may wait long (an approval): proxies keep a stream open that still says something.
    const keepalive = setInterval(() => void stream.write(': keepalive\n\n').catch(() => undefined), KEEPALIVE_MS);
    try {
      for await (const item of streamMessage(ctx.baton.streams, id, key, from, reply, {
        signal: abort.signal,
        stopped: stoppedCallsOf(ctx.baton.client, id),
      })) {
        await stream.writeSSE({ event: item.kind, data: JSON.stringify(item.kind === 'reply' ? item.reply : item) });
      }
    } catch (err) {
      if (abort.signal.aborted) return;
      await stream
        .writeSSE({ event: 'error', data: JSON.stringify(problemBody(toProblem(turnProblem(err)))) })
        .catch(() => undefined);
    } finally {
      clearInterval(keepalive);
    }
  });
}

/** 202: the conversation took the message, still being answered; where to follow it. */
export async function accepted202(c: Context, ctx: ServiceContext, id: string, key: string): Promise<Response> {
  const found = await lookupMessage(ctx, id, { idempotencyKey: key }).catch(() => undefined);
  const m = found && found !== 'unknown' ? found.message : null;
  const follow = followPath(id, key);
  c.header('location', follow);
  c.header('retry-after', '1');
  return c.json(
    {
      status: m?.status === 'queued' ? 'queued' : 'answering',
      idempotencyKey: key,
      ...(m?.turn !== undefined ? { turn: m.turn } : {}),
      follow,
    },
    202,
  );
}

/** 503: the conversation did not take the message in time; sent again with the key, it is answered once. */
export function notTaken(c: Context, id: string, key: string | undefined): Response {
  const again = key
    ? ` with the header Idempotency-Key: ${key} (the message is answered once, however often it is sent with it)`
    : '';
  c.header('retry-after', '2');
  if (key) c.header('idempotency-key', key);
  return sendProblem(
    c,
    new HttpProblem(
      503,
      'Unavailable',
      `conversation ${id} did not take the message in time (its worker may be busy or away); send it again${again}`,
    ),
  );
}

/** Where a message sent with `key` is followed: `GET` it for the reply. */
export function followPath(id: string, key: string): string {
  return `/v1/conversations/${encodeURIComponent(id)}/messages/${encodeURIComponent(key)}`;
}

/** A remembered failed turn, as sending the message would have answered it. */
export function failedTurnProblem(failure: { type: string; message: string } | undefined): HttpProblem {
  const type = failure?.type ?? 'Error';
  if (REFUSALS.has(type)) return new HttpProblem(409, 'Refused', failure?.message ?? type);
  return new HttpProblem(422, 'Turn failed', `${type}: ${failure?.message ?? ''}`);
}

const REFUSALS = new Set(['ConversationBusyError', 'MessageRolledBackError', 'ConversationEndedError']);
const KEEPALIVE_MS = 15_000;

/** A refused message or a failed turn as an HTTP answer; anything else as the service maps it. */
export function turnProblem(err: unknown): unknown {
  if (err instanceof InvalidRunInputError)
    return new HttpProblem(400, 'Invalid message', 'The message is not valid.', err.problems.map(fieldError));
  if (err instanceof InputTooLargeError) return toProblem(err);
  if (err instanceof UserError) return new HttpProblem(409, 'Refused', err.message);
  if (err instanceof BatonError) return new HttpProblem(422, 'Turn failed', `${err.name}: ${err.message}`);
  return err;
}
