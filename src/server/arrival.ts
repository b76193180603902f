/**
 * Messages to one conversation keep the order they reached the service in. A message takes its
 * place in its conversation's lane as its request arrives, before its token is checked or its body
 * read (`arrivalOrder`); each request's checks (its size, what kind of workflow the id is) take
 * their own time, and the send that follows joins the conversation's lane only once every message
 * that arrived before it has joined, so a quick request never overtakes a slow one.
 */
import type { MiddlewareHandler } from 'hono';

/** A message's place in its conversation's lane: wait for `before`, then `release` the next one. */
export interface Place {
  before: Promise<void>;
  /** Lets the next message in the lane go: called once this one's send has joined the lane, or it gives its place up. */
  release(): void;
}

const tails = new Map<string, Promise<void>>();

/** The next place in conversation `id`'s lane. */
export function takePlace(id: string): Place {
  const before = tails.get(id) ?? Promise.resolve();
  let done!: () => void;
  const mine = new Promise<void>((resolve) => (done = resolve));
  tails.set(id, mine);
  return {
    before,
    release: () => {
      done();
      if (tails.get(id) === mine) tails.delete(id);
    },
  };
}

/**
 * Run `checks` for a message once the messages before it in `place`'s lane have joined, then
 * `send` (which must join the conversation's lane synchronously, as `ConversationHandle.send`
 * does); resolves with the send's outcome. A message whose checks fail lets the next one go.
 */
export async function inArrivalOrder<T>(place: Place, checks: () => Promise<void>, send: () => Promise<T>): Promise<T> {
  let sent: Promise<T>;
  try {
    await place.before;
    await checks();
    sent = send();
  } finally {
    place.release();
  }
  return sent;
}

/** A path segment as the route reads it. */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

const MESSAGES = /^\/v1\/conversations\/([^/]+)\/messages$/;

/**
 * Middleware, registered before authentication: a `POST /v1/conversations/{id}/messages` takes its
 * place as it arrives (in the context's `place`); a request refused before its route runs (its
 * token, its body) gives its place up.
 */
export function arrivalOrder(): MiddlewareHandler<{ Variables: { place?: Place } }> {
  return async (c, next) => {
    const id = c.req.method === 'POST' ? MESSAGES.exec(c.req.path)?.[1] : undefined;
    if (id === undefined) return next();
    const place = takePlace(decoded(id));
    c.set('place', place);
    try {
      await next();
    } finally {
      place.release();
    }
  };
}
