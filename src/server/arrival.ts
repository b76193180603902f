/**
 * Messages to one conversation keep the order they reached the service in. Each request's checks
 * (its size, what kind of workflow the id is) take their own time; the send that follows joins the
 * conversation's lane only once every message that arrived before it has joined, so a quick check
 * never overtakes a slow one.
 */

const tails = new Map<string, Promise<void>>();

/**
 * Run `checks` for a message to conversation `id` after those of the messages before it, then
 * `send` (which must join the conversation's lane synchronously, as `ConversationHandle.send`
 * does); resolves with the send's outcome. A message whose checks fail lets the next one go.
 */
export async function inArrivalOrder<T>(id: string, checks: () => Promise<void>, send: () => Promise<T>): Promise<T> {
  const before = tails.get(id) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => (release = resolve));
  tails.set(id, mine);
  let sent: Promise<T>;
  try {
    await before;
    await checks();
    sent = send();
  } finally {
    release();
    if (tails.get(id) === mine) tails.delete(id);
  }
  return sent;
}
