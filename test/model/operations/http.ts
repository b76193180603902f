/**
 * The HTTP lane: the service `baton serve` runs (`createBatonApp` from src/server), in-process on
 * the sequence's client, takes conversation messages: a POST answered with the reply, or — a turn
 * longer than the service's `replyWaitMs`, as every turn that waits for the harness's answer is —
 * with 202 and `Location`, which the caller follows until the reply; and the same POST sent again
 * (with its `Idempotency-Key`, or without one: the service derives it), which must be that message,
 * never a second one.
 */
import fc from 'fast-check';
import { createBatonApp, Role, type ServiceApp } from '../../../src/server';
import { broken, clip, errorText, operation, sleep, type Harness } from '../harness';
import { openRoots, pick, type ModelState, type RootModel, type SentMessage } from '../model';
import { inFlight } from './conversation';

const TOKEN = 'model-harness-alice';
/** How long the service waits for a turn before it answers 202: shorter than the harness's steps. */
const REPLY_WAIT_MS = 1_500;
const apps = new WeakMap<Harness, ServiceApp>();

/** The service of the sequence's harness, made on first use. */
function appOf(h: Harness): ServiceApp {
  let app = apps.get(h);
  if (!app) {
    app = createBatonApp({
      baton: h.baton,
      auth: { tokens: [{ token: TOKEN, identity: 'alice', roles: [Role.ADMIN] }] },
      metrics: false,
      replyWaitMs: REPLY_WAIT_MS,
      log: () => undefined,
    });
    apps.set(h, app);
  }
  return app;
}

/** Send the message's request; answers the status, the key the service named, and the body. */
async function post(
  h: Harness,
  root: RootModel,
  msg: SentMessage,
): Promise<{ status: number; key: string | null; body: Record<string, unknown> }> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${TOKEN}`,
    'content-type': 'application/json',
    ...(msg.http!.header ? { 'idempotency-key': msg.key } : {}),
  };
  const res = await appOf(h).request(`/v1/conversations/${encodeURIComponent(root.id)}/messages`, {
    method: 'POST',
    headers,
    body: JSON.stringify(msg.http!.body),
  });
  return {
    status: res.status,
    key: res.headers.get('idempotency-key'),
    body: (await res.json().catch(() => ({}))) as Record<string, unknown>,
  };
}

/** A problem answer as the error a library caller would have got: its typed error's name, when the answer names it. */
function problemError(msg: SentMessage, status: number, body: Record<string, unknown>): void {
  const detail = String(body.detail ?? body.title ?? '');
  const named = /^([A-Z]\w+Error): /.exec(detail)?.[1];
  const refused =
    status === 409
      ? /rolled back/.test(detail)
        ? 'MessageRolledBackError'
        : /has ended|is ending/.test(detail)
          ? 'ConversationEndedError'
          : /refuses messages/.test(detail)
            ? 'ConversationBusyError'
            : undefined
      : undefined;
  msg.error = named ?? refused ?? `HTTP ${status}`;
  msg.errorMessage = `${status} ${clip(detail, 400)}`;
  const told =
    named === 'TurnStrandedError'
      ? /Message (\d+) of conversation \S+(?: waits behind message (\d+))?/.exec(detail)
      : null;
  if (told)
    msg.stranded = {
      turn: Number(told[1]),
      strandedTurn: Number(told[2] ?? told[1]),
      told: (msg.stranded?.told ?? 0) + 1,
    };
}

/** Follow a 202's `Location` until the reply or the turn's error; the harness answers the turn meanwhile. */
async function follow(h: Harness, root: RootModel, msg: SentMessage, location: string): Promise<void> {
  msg.http!.followed++;
  for (const until = Date.now() + 10 * 60_000; Date.now() < until;) {
    const res = await appOf(h).request(`${location}?wait=5`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (res.status === 200) return void (msg.reply = body as unknown as SentMessage['reply']);
    if (res.status === 202) continue;
    // Not answerable now (a worker coming back) is told as 503: asked again; the sequence over, the conversation is gone.
    if (
      res.status === 503 &&
      (await h.system.client.workflow
        .getHandle(root.id)
        .describe()
        .then(
          (d) => d.status.name === 'RUNNING',
          () => false,
        ))
    ) {
      await sleep(1_000);
      continue;
    }
    return problemError(msg, res.status, body);
  }
}

/** POST `msg` (again, when it was sent), and settle it by what the service answers. */
async function deliver(h: Harness, root: RootModel, msg: SentMessage, again: boolean): Promise<void> {
  let answered = await post(h, root, msg);
  // Not taken in time (a busy or lost worker): sent again with the key the 503 named, as its advice says.
  for (let tries = 0; !again && answered.status === 503 && answered.key && tries < 10; tries++) {
    Object.assign(msg, { key: answered.key });
    msg.http!.header = true;
    await sleep(2_000);
    answered = await post(h, root, msg);
  }
  if (answered.key) msg.http!.keys.push(answered.key);
  if (!again) msg.key = answered.key ?? msg.key;
  const b = answered.body;
  if (answered.status === 200) {
    if (again && msg.reply && msg.reply.turn !== (b as { turn?: number }).turn)
      broken(
        h,
        'answered-once',
        `${root.id}: message ${msg.n} retried over HTTP was answered as turn ${String(b.turn)}, first as turn ${msg.reply.turn}`,
      );
    msg.reply ??= b as unknown as SentMessage['reply'];
    return;
  }
  if (answered.status === 202) {
    const location = String(b.follow ?? '');
    if (!location.endsWith(`/messages/${encodeURIComponent(msg.key)}`))
      broken(
        h,
        'answered-once',
        `${root.id}: message ${msg.n}${again ? ' retried' : ''} over HTTP answered 202 to follow ${location}, not its key ${msg.key}`,
      );
    if (!again) await follow(h, root, msg, location);
    return;
  }
  if (!again || (!msg.reply && !msg.error)) problemError(msg, answered.status, b);
}

/** Conversations that take messages over HTTP: open, not ending, not too busy. */
function taking(m: ModelState): RootModel[] {
  return openRoots(m, 'conversation').filter((r) => !r.ending && inFlight(r).length < 3);
}

/** Messages sent over HTTP that a retry may send again: in flight, or with a key of their own (a derived key names the message only while it is not answered). */
function retryable(m: ModelState): SentMessage[] {
  return openRoots(m, 'conversation').flatMap((r) =>
    r.messages.filter((x) => x.http && (!x.stranded || x.resent) && (x.http.header || (!x.reply && !x.error))),
  );
}

export const httpOperations = [
  operation({
    name: 'http_send',
    group: 'conversation',
    weight: 4,
    params: fc.record({
      chat: fc.nat(),
      header: fc.boolean(),
      midTurn: fc.constantFrom('default', 'default', 'enqueue', 'interrupt'),
    }),
    applies: (m) => taking(m).length > 0,
    async run(h, p) {
      const root = pick(taking(h.model), p.chat)!;
      const n = root.messages.length + 1;
      const text = `message ${n} over HTTP`;
      const msg: SentMessage = {
        n,
        key: `${root.id}-h${n}`,
        text,
        midTurn: p.midTurn,
        streamed: false,
        done: Promise.resolve(),
      };
      msg.http = {
        body: { agent: root.agent, message: text, ...(p.midTurn !== 'default' ? { midTurn: p.midTurn } : {}) },
        header: p.header,
        keys: [],
        followed: 0,
      };
      root.messages.push(msg);
      msg.done = deliver(h, root, msg, false).catch((err: unknown) => {
        msg.error = 'HTTP request failed';
        msg.errorMessage = errorText(err);
      });
      // Answered, or taken and followed (202 comes after the service's replyWaitMs).
      await Promise.race([msg.done, sleep(REPLY_WAIT_MS + 3_000)]);
    },
  }),
  operation({
    name: 'http_retry',
    group: 'conversation',
    weight: 3,
    params: fc.record({ message: fc.nat() }),
    applies: (m) => retryable(m).length > 0,
    async run(h, p) {
      const msg = pick(retryable(h.model), p.message)!;
      const root = openRoots(h.model, 'conversation').find((r) => r.messages.includes(msg))!;
      // A retry whose first answer has not come yet: what the caller of a 503 or a lost connection does.
      await Promise.race([deliver(h, root, msg, true), sleep(REPLY_WAIT_MS + 3_000)]).catch((err: unknown) =>
        broken(h, 'answered-once', `${root.id}: retrying message ${msg.n} over HTTP failed: ${errorText(err)}`),
      );
    },
  }),
];
