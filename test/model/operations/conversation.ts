/**
 * Conversations: start one (a mid-turn policy, compaction past a few dozen tokens, continue-as-new
 * every few steps), send messages under each `midTurn` policy (some followed with `chat.stream`,
 * some long enough to be compacted), and end it.
 */
import fc from 'fast-check';
import type { Conversation } from '../../../src';
import { TurnStrandedError, type MidTurnPolicy } from '../../../src/workflow';
import { applyItem } from '../follow';
import { broken, clip, errorText, operation, sleep, type Harness } from '../harness';
import { openRoots, pick, type ModelState, type RootModel, type SentMessage } from '../model';
import { START_AGENTS } from '../team';
import { BASE_OPTIONS, newRoot, roomForRoot } from './chain';

const POLICIES = ['enqueue', 'reject', 'interrupt', 'rollback'] as const;
/** Messages a conversation has in flight at most. */
const MAX_IN_FLIGHT = 3;

/** The client of a conversation root. */
export function chatOf(h: Harness, root: RootModel): Conversation {
  return h.baton.conversation(root.agent, {
    id: root.id,
    options: root.options,
    ...(root.conversation ? { conversation: root.conversation } : {}),
    context: root.context,
  });
}

/** Messages of `root` sent and not yet answered. */
export function inFlight(root: RootModel): SentMessage[] {
  return root.messages.filter((x) => !x.reply && !x.error);
}

/** Conversations that take messages: open, not ending, not too busy. */
function taking(m: ModelState): RootModel[] {
  return openRoots(m, 'conversation').filter((r) => !r.ending && inFlight(r).length < MAX_IN_FLIGHT);
}

/** Record how sending `msg` failed; a turn stranded by a deploy counts the times its caller was told. */
export function failed(msg: SentMessage, err: unknown): void {
  msg.error = (err as Error).name ?? 'Error';
  msg.errorMessage = errorText(err);
  if (err instanceof TurnStrandedError)
    msg.stranded = { turn: err.turn, strandedTurn: err.strandedTurn, told: (msg.stranded?.told ?? 0) + 1 };
}

/** Send a message and wait until the conversation took it (or answered or refused it). */
export async function send(
  h: Harness,
  root: RootModel,
  o: { midTurn?: MidTurnPolicy; long: boolean; stream: boolean },
): Promise<void> {
  const chat = chatOf(h, root);
  const n = root.messages.length + 1;
  const text = o.long
    ? `message ${n}: ${'a long story about an order that went missing, '.repeat(12)}`
    : `message ${n}`;
  const key = `${root.id}-m${n}`;
  const msg: SentMessage = {
    n,
    key,
    text,
    midTurn: o.midTurn ?? 'default',
    streamed: o.stream,
    done: Promise.resolve(),
  };
  const before = await chat.status().then(
    (v) => v.turns,
    () => 0,
  );
  const options = { idempotencyKey: key, ...(o.midTurn ? { midTurn: o.midTurn } : {}) };
  msg.done = (async () => {
    try {
      if (!o.stream) msg.reply = await chat.send(text, options);
      else {
        msg.texts = new Map();
        for await (const item of chat.stream(text, options)) {
          applyItem(msg.texts, item);
          if (item.kind === 'reply') msg.reply = item.reply;
        }
      }
    } catch (err) {
      failed(msg, err);
    }
  })();
  root.messages.push(msg);
  // Taken: counted among the turns, or answered by a model call (one it interrupted, merged into it).
  const answering = () => h.system.hosts.calls().some((c) => c.message === key || c.merged?.includes(key));
  for (const deadline = Date.now() + 10_000; Date.now() < deadline && !msg.reply && !msg.error && !answering();) {
    if (
      (await chat.status().then(
        (v) => v.turns,
        () => before,
      )) > before
    )
      return;
    await sleep(150);
  }
}

export const conversationOperations = [
  operation({
    name: 'chat_start',
    group: 'conversation',
    opens: true,
    weight: 5,
    params: fc.record({
      agent: fc.nat(),
      midTurn: fc.constantFrom(...POLICIES),
      compact: fc.boolean(),
      tinyCan: fc.boolean(),
      stream: fc.boolean(),
    }),
    applies: (m) => roomForRoot(m),
    async run(h, p) {
      const root = newRoot(h.model, 'conversation', pick(START_AGENTS, p.agent)!, {
        ...BASE_OPTIONS,
        ...(p.tinyCan ? { continueAsNewAfterEvents: 20 } : {}),
      });
      root.conversation = { midTurn: p.midTurn, ...(p.compact ? { compactAfterTokens: 30, keepRecentTurns: 1 } : {}) };
      await send(h, root, { long: false, stream: p.stream });
    },
  }),
  operation({
    name: 'chat_send',
    group: 'conversation',
    weight: 6,
    params: fc.record({
      chat: fc.nat(),
      midTurn: fc.constantFrom<MidTurnPolicy | 'default'>('default', 'default', ...POLICIES),
      long: fc.boolean(),
      stream: fc.boolean(),
    }),
    applies: (m) => taking(m).length > 0,
    run: (h, p) =>
      send(h, pick(taking(h.model), p.chat)!, {
        ...(p.midTurn !== 'default' ? { midTurn: p.midTurn } : {}),
        long: p.long,
        stream: p.stream,
      }),
  }),
  operation({
    // A message and, as soon as it is taken, the end: with continue-as-new every few events the send
    // follows its message into the next run and may find the conversation answered and ended. Once
    // ended, the message is sent again with its key, as a caller retrying it would: the same reply.
    name: 'chat_send_end',
    group: 'conversation',
    weight: 1,
    params: fc.record({ chat: fc.nat(), stream: fc.boolean() }),
    applies: (m) => taking(m).length > 0,
    async run(h, p) {
      const root = pick(taking(h.model), p.chat)!;
      await send(h, root, { long: false, stream: p.stream });
      const msg = root.messages.at(-1)!;
      root.ending = chatOf(h, root)
        .end()
        .then(async () => {
          await msg.done;
          const again = await chatOf(h, root)
            .send(msg.text, { idempotencyKey: msg.key })
            .catch((err: unknown) => err as Error);
          const first = msg.reply ? JSON.stringify(msg.reply) : msg.error;
          const second = again instanceof Error ? again.name : JSON.stringify(again);
          if (msg.reply && first !== second)
            broken(
              h,
              'answered-not-ended',
              `${root.id}: message ${msg.n} sent again with its key after the end answered ${clip(second)}, not its reply ${clip(first)}`,
            );
        })
        .catch((err: unknown) => void (root.endError = errorText(err)));
    },
  }),
  operation({
    name: 'chat_end',
    group: 'conversation',
    weight: 1,
    params: fc.record({ chat: fc.nat() }),
    applies: (m) => openRoots(m, 'conversation').some((r) => !r.ending),
    async run(h, p) {
      const root = pick(
        openRoots(h.model, 'conversation').filter((r) => !r.ending),
        p.chat,
      )!;
      // It ends once the messages it took are answered: the harness answers them meanwhile.
      root.ending = chatOf(h, root)
        .end()
        .then(
          () => undefined,
          (err: unknown) => void (root.endError = errorText(err)),
        );
    },
  }),
];
