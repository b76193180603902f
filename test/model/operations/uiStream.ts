/**
 * The AI SDK's UI message stream route (`/v1/ui/conversations`), as a `useChat` client uses it:
 * send a message to a conversation, send it again (the same message id: a retried request), and
 * approve what waits from the chat (an `approval-responded` part in the next request). The
 * service runs in this process on the sequence's Baton (`app.fetch`); each stream is read with the
 * `ai` package's own parser and `readUIMessageStream`. Invariants: no message answered twice, and
 * a stream that finished shows the reply history records (replaced text dropped).
 */
import fc from 'fast-check';
import { messageQuery } from '../../../src/common/messages';
import { broken, clip, errorText, operation, sleep, type Harness, type Invariant } from '../harness';
import { openRoots, pick, type RootModel, type SentMessage } from '../model';
import { post, readStream, storedChat, typeIn, userMessage, type UiStreamRead } from '../uiRoute';
import { taken, waiting, type Waiting } from '../waiting';
import { inFlight } from './conversation';

/** A message sent through the route, and the streams read for it. */
interface UiSent {
  root: RootModel;
  msg: SentMessage;
  streams: UiStreamRead[];
  judged?: boolean;
}
const sentBy = new WeakMap<Harness, UiSent[]>();

/** The messages sent through the route in this sequence. */
function sentOf(h: Harness): UiSent[] {
  let list = sentBy.get(h);
  if (!list) sentBy.set(h, (list = []));
  return list;
}

/** Follow a message sent through the route to its reply: its streams, then the conversation's record of it; once answered, sent again to read it whole. */
function followToReply(h: Harness, sent: UiSent, first: Promise<Response>): Promise<void> {
  const { root, msg } = sent;
  return (async () => {
    try {
      const res = await first;
      if (res.status !== 200) throw new Error(`the route answered ${res.status}: ${await res.text()}`);
      const read = await readStream(res);
      sent.streams.push(read);
      // A stream that stopped at an approval alice may decide ends there; the message goes on.
      for (let i = 0; i < 600; i++) {
        const found = await h.system.client.workflow
          .getHandle(root.id)
          .query(messageQuery, { idempotencyKey: msg.key })
          .catch(() => undefined);
        const m = found?.message;
        if (m?.status === 'answered') msg.reply = m.reply as SentMessage['reply'];
        else if (m?.status === 'failed')
          [msg.error, msg.errorMessage] = [m.failure?.type ?? 'Error', m.failure?.message ?? ''];
        // Refused as it arrived (the \`reject\` mid-turn policy): the conversation has no turn for it, and the stream's error is its answer.
        else if (found && m === null && read.finish === 'error' && read.error)
          [msg.error, msg.errorMessage] = [typeIn(read.error), read.error];
        if (msg.reply || msg.error) break;
        await sleep(500);
      }
      if (msg.reply && !sent.streams.some((s) => s.finish === 'stop')) {
        // The same message again (a retried request): answered from the record, not a second time.
        const again = await post(h, { id: root.id, messages: [userMessage(msg)] });
        if (again.status === 200) sent.streams.push(await readStream(again));
      }
    } catch (err) {
      if (!msg.reply && !msg.error) [msg.error, msg.errorMessage] = ['UiRouteError', errorText(err)];
    }
  })();
}

/** Conversations that take messages: open, not ending, not too busy. */
const taking = (h: Harness) => openRoots(h.model, 'conversation').filter((r) => !r.ending && inFlight(r).length < 3);

/** Messages sent through the route, to send again. */
const resendable = (h: Harness) => sentOf(h).filter((s) => s.root.status === 'open' && !s.root.ending);

/** Approvals alice may decide from a conversation's chat (no signature required). */
const decidable = (h: Harness) =>
  waiting(h.model).filter(
    (w) =>
      w.root.kind === 'conversation' &&
      !w.p.requireSignature &&
      (w.p.approvers === undefined || w.p.approvers.includes('alice')),
  );

export const uiStreamOperations = [
  operation({
    name: 'ui_send',
    group: 'conversation',
    weight: 4,
    params: fc.record({ chat: fc.nat() }),
    applies: (m) => openRoots(m, 'conversation').some((r) => !r.ending && inFlight(r).length < 3),
    async run(h, p) {
      const root = pick(taking(h), p.chat);
      if (!root) return;
      const n = root.messages.length + 1;
      const msg: SentMessage = {
        n,
        key: `${root.id}-m${n}`,
        text: `message ${n} through useChat`,
        midTurn: 'default',
        streamed: true,
        done: Promise.resolve(),
      };
      const sent: UiSent = { root, msg, streams: [] };
      const first = post(h, { id: root.id, trigger: 'submit-message', messages: [userMessage(msg)] });
      msg.done = followToReply(h, sent, first);
      root.messages.push(msg);
      sentOf(h).push(sent);
      // The route answers once the conversation took the message (or refused it).
      await Promise.race([first, sleep(15_000)]);
    },
  }),
  operation({
    name: 'ui_resend',
    group: 'conversation',
    weight: 2,
    params: fc.record({ message: fc.nat() }),
    applies: () => true,
    async run(h, p) {
      const sent = pick(resendable(h), p.message);
      if (!sent) return;
      const res = post(h, { id: sent.root.id, trigger: 'submit-message', messages: [userMessage(sent.msg)] });
      // Read in the background: it follows the same answer, which the harness answers meanwhile.
      const reading = res.then((r) =>
        r.status === 200 ? readStream(r) : r.text().then((t) => ({ error: `${r.status}: ${t}` })),
      );
      const before = sent.msg.done;
      sent.msg.done = Promise.all([before, reading.then((s) => void sent.streams.push(s))]).then(() => undefined);
      await Promise.race([res, sleep(15_000)]);
    },
  }),
  operation({
    name: 'ui_approve',
    group: 'approvals',
    weight: 3,
    params: fc.record({ approval: fc.nat() }),
    applies: () => true,
    async run(h, p) {
      const w = pick(decidable(h), p.approval);
      if (!w) return;
      await approveInChat(h, w);
    },
  }),
];

/** Approve `w` as a chat does: the assistant message with its part answered, in the next request. */
async function approveInChat(h: Harness, w: Waiting): Promise<void> {
  const messages = await storedChat(h, w.root.id);
  if (!messages) return;
  const index = messages.findIndex(
    (m) =>
      m.role === 'assistant' &&
      m.parts.some(
        (x) =>
          (x as { approval?: { id?: string } }).approval?.id === w.p.handoffId &&
          (x as { state?: string }).state === 'approval-requested',
      ),
  );
  // An approval the chat does not show as a card (a specialist's, behind a delegation) is decided elsewhere.
  if (index < 0) return;
  const answer = messages[index]!;
  const parts = answer.parts.map((x) =>
    (x as { approval?: { id?: string } }).approval?.id === w.p.handoffId
      ? { ...x, state: 'approval-responded', approval: { id: w.p.handoffId, approved: true, reason: 'from the chat' } }
      : x,
  );
  const decided = await post(h, {
    id: w.root.id,
    trigger: 'submit-message',
    messages: [...messages.slice(0, index), { ...answer, parts }],
  });
  if (decided.status === 200) {
    taken(w, { handoffId: w.p.handoffId, outcome: 'approved' }, false);
    const sent = sentOf(h).find((s) => `${s.msg.key}:answer` === answer.id);
    const reading = readStream(decided);
    if (sent)
      sent.msg.done = Promise.all([sent.msg.done, reading.then((s) => void sent.streams.push(s))]).then(
        () => undefined,
      );
    else void reading;
    return;
  }
  const problem = await decided.text();
  // A decision that lost a race (the chain moved on, a kill) is refused with 404 or 409; nothing else is expected.
  if (decided.status !== 404 && decided.status !== 409)
    broken(
      h,
      'decision-answered',
      `approving ${w.p.handoffId} in ${w.root.id} from the chat answered ${decided.status}: ${clip(problem, 300)}`,
    );
}

export const uiStreamInvariants: Invariant[] = [
  {
    // A message sent through the route, however often, is one turn of its conversation.
    name: 'ui-answered-once',
    when: 'step',
    async check(h) {
      for (const sent of sentOf(h)) {
        if (sent.judged || (!sent.msg.reply && !sent.msg.error)) continue;
        const turns = await h.baton
          .conversation(sent.root.agent, { id: sent.root.id })
          .history()
          .catch(() => undefined);
        if (!turns) continue;
        sent.judged = true;
        const n = turns.filter((t) => t.message === sent.msg.text).length;
        if (n > 1) broken(h, 'ui-answered-once', `${sent.root.id}: message ${sent.msg.key} answered ${n} times`);
      }
    },
  },
  {
    // A stream that finished shows, last, the reply the conversation records.
    name: 'ui-stream-text',
    when: 'end',
    async check(h) {
      for (const sent of sentOf(h)) {
        const reply = sent.msg.reply;
        for (const s of sent.streams) {
          if (s.finish !== 'stop' || !reply) continue;
          const recorded = typeof reply.output === 'string' ? reply.output : JSON.stringify(reply.output);
          if (s.messageId !== `${sent.msg.key}:answer`)
            broken(
              h,
              'ui-stream-text',
              `${sent.root.id}: the stream of ${sent.msg.key} named its answer ${s.messageId}`,
            );
          if (recorded !== '' && s.text !== recorded)
            broken(
              h,
              'ui-stream-text',
              `${sent.root.id}: the stream of ${sent.msg.key} shows ${clip(s.text)}, the reply is ${clip(recorded)}`,
            );
        }
      }
    },
  },
];
