/**
 * The idempotency key of a conversation message sent over HTTP. The caller's, when it gives one
 * (`idempotencyKey` in the body, or an `Idempotency-Key` header); else one derived from the request:
 * the caller's identity, the conversation, the agent, the message and its mid-turn policy. A request
 * sent again while its message still waits or is being answered gets that message's key, so it is
 * answered once, with the first one's reply; the same text sent once the first was answered is a
 * new message, as a person typing "yes" twice means it.
 */
import { createHash } from 'node:crypto';
import type { MessageLookup, MessageLookupResult } from '../common/conversation';
import { messageQuery } from '../common/messages';
import type { ServiceContext } from './context';

/** The prefix of derived keys: a caller's own keys are theirs to choose, derived ones say where they came from. */
export const DERIVED_KEY_PREFIX = 'http-';

/** The request a derived key is made from. */
export interface MessageRequest {
  identity: string;
  conversation: string;
  agent: string;
  message: string;
  midTurn?: string;
}

/**
 * The key of a message without one of its caller's: `<base>.<n>`, where `<base>` is derived from the
 * request. The key of the same request's message while it waits or is answered; else the next `n`
 * after those the conversation remembers answering. When the conversation cannot be asked (no
 * worker answers it now), `<base>.1`: a message sent again meanwhile is still the same one.
 */
export async function derivedMessageKey(ctx: ServiceContext, request: MessageRequest): Promise<string> {
  const base = `${DERIVED_KEY_PREFIX}${createHash('sha256')
    .update(
      JSON.stringify([request.identity, request.conversation, request.agent, request.message, request.midTurn ?? '']),
    )
    .digest('hex')
    .slice(0, 32)}.`;
  const found = await lookupMessage(ctx, request.conversation, { pendingWithPrefix: base });
  if (found === undefined || found === 'unknown') return `${base}1`;
  if (found.message) return found.message.idempotencyKey;
  const used = (found.answered ?? []).map((k) => Number(k.slice(base.length))).filter(Number.isSafeInteger);
  return `${base}${Math.max(0, ...used) + 1}`;
}

/**
 * Ask conversation `id` about a message: `undefined` when there is no such conversation yet,
 * `'unknown'` when it cannot answer (a worker from before the query, or none polling).
 */
export async function lookupMessage(
  ctx: ServiceContext,
  id: string,
  find: MessageLookup,
): Promise<MessageLookupResult | undefined | 'unknown'> {
  try {
    const { connection, workflow } = ctx.baton.client;
    return await connection.withDeadline(Date.now() + ctx.temporalTimeoutMs, () =>
      workflow.getHandle(id).query(messageQuery, find),
    );
  } catch (err) {
    const name = (err as Error)?.name;
    if (name === 'WorkflowNotFoundError') return undefined;
    if (
      name === 'QueryNotRegisteredError' ||
      name === 'QueryRejectedError' ||
      /unknown queryType|did not register|timeout|deadline|no poller/i.test((err as Error)?.message ?? '')
    )
      return 'unknown';
    throw err;
  }
}
