/**
 * The conversation's inbox: what the `sendMessage` and `endConversation` handlers receive. Handlers
 * only queue (each message gets its turn number in arrival order) or answer from what is already
 * known (a key whose reply is remembered); the session takes messages from here at fixed points.
 */
import { ApplicationFailure } from '@temporalio/common';
import { currentUpdateInfo } from '@temporalio/workflow';
import {
  type ConversationReply,
  type ConversationResult,
  type ConversationState,
  type MessageLookup,
  type MessageLookupResult,
  type MessageView,
  type QueuedMessage,
  type RememberedReply,
  type SendMessageInput,
} from '../../src/common/conversation';
import { ConversationContinuedError, ConversationEndedError } from '../../src/common/conversationErrors';
import { InputTooLargeError, InvalidRunInputError, toApplicationFailure } from '../../src/common/errors';
import { type TurnStranding, TurnStrandedError } from '../../src/common/stranded';
import { sendMessageProblems } from '../../src/common/input';
import { isUnreadable } from '../../src/common/arrival';
import { messageSizes } from '../../src/common/sizes';
import { keyOf } from './turns';
import { hasPatch } from '../patches';
import { Patches } from '../../src/common/patches';
import type { MidTurn } from './midTurn';

type Reply = ConversationReply<unknown>;

interface Waiter<T> {
  resolve(value: T): void;
  reject(err: unknown): void;
}

/** A message taken and not yet answered, with the callers waiting for its reply. */
export interface Inbound extends QueuedMessage {
  waiters: Waiter<Reply>[];
}

export class Inbox {
  /** Messages waiting for their turn, in arrival order. */
  readonly queue: Inbound[] = [];
  /** Callers waiting for the message being answered. */
  current?: Inbound;
  private readonly ends: Waiter<ConversationResult>[] = [];
  /** Messages that arrived before the conversation's state was known. */
  private readonly early: { raw: SendMessageInput; updateId?: string; waiter: Waiter<Reply> }[] = [];
  private state?: ConversationState;
  private result?: ConversationResult;
  /** What a message that arrives mid-turn does (conversations that started with the live patch). */
  midTurn?: MidTurn;
  /** The current turn waits for a worker of its team: callers are told so at once. */
  private stranding?: { turn: number } & Omit<TurnStranding, 'since'>;

  constructor(private readonly workflowId: string) {}

  /** The conversation's state: messages carried from an earlier run wait first, then any that came early. */
  attach(state: ConversationState): void {
    this.state = state;
    if (this.ends.length > 0) state.ending = true;
    if (state.current) {
      const { startedAt: _s, before: _b, ...m } = state.current;
      this.current = { ...m, waiters: [] };
    }
    this.queue.push(...state.queued.map((m) => ({ ...m, waiters: [] })));
    for (const { raw, updateId, waiter } of this.early.splice(0)) this.take(raw, updateId, waiter);
  }

  /** The update validator: refuse a message over its limits, malformed, or that comes once the conversation ends. */
  validate(raw: unknown): void {
    if (isUnreadable(raw))
      throw toApplicationFailure(
        raw.size
          ? new InputTooLargeError([raw.size])
          : new InvalidRunInputError([
              `${raw.problem('the message')}; send {"message": string, "idempotencyKey"?: string} as JSON`,
            ]),
      );
    const sizes = messageSizes(raw);
    if (sizes.length > 0) throw toApplicationFailure(new InputTooLargeError(sizes));
    const problems = sendMessageProblems(raw);
    if (problems.length > 0) throw toApplicationFailure(new InvalidRunInputError(problems));
    const key = (raw as SendMessageInput).idempotencyKey;
    if ((this.result || this.state?.ending) && !(key !== undefined && this.knows(key)))
      throw toApplicationFailure(new ConversationEndedError(this.workflowId, !this.result));
  }

  /** A message: queued for its turn; a known key waits for (or gets at once) the reply of its first sending. */
  receive(raw: SendMessageInput): Promise<Reply> {
    const updateId = currentUpdateInfo()?.id;
    return new Promise<Reply>((resolve, reject) => {
      const waiter = { resolve, reject };
      if (this.state) this.take(raw, updateId, waiter);
      else this.early.push({ raw, ...(updateId ? { updateId } : {}), waiter });
    });
  }

  /** An end request: answered with the result once the messages taken before it are answered. */
  requestEnd(): Promise<ConversationResult> {
    if (this.result) return Promise.resolve(this.result);
    if (this.state) this.state.ending = true;
    return new Promise((resolve, reject) => this.ends.push({ resolve, reject }));
  }

  /** The next message to answer, now the current one. */
  next(): Inbound | undefined {
    this.current = this.queue.shift();
    return this.current;
  }

  /** The current message's turn is over: its callers get the reply or the failure. */
  settle(outcome: RememberedReply): void {
    for (const w of this.current?.waiters ?? []) settleOne(w, outcome);
    this.current = undefined;
    this.stranding = undefined;
  }

  /**
   * The current turn waits for a worker of its team: its callers, and those of the messages behind
   * it, are told now (`TurnStrandedError`), as is every caller until it goes on. Their messages stay.
   */
  strand(stranding: { turn: number } & Omit<TurnStranding, 'since'>): void {
    this.stranding = stranding;
    for (const m of [...(this.current ? [this.current] : []), ...this.queue])
      for (const w of m.waiters.splice(0)) w.reject(this.stranded(m));
  }

  /** The current turn goes on (a worker took its step, or it moved onto the current team). */
  unstrand(): void {
    this.stranding = undefined;
  }

  /** The conversation ended: end requests get its result. */
  ended(result: ConversationResult): void {
    this.result = result;
    for (const w of this.ends.splice(0)) w.resolve(result);
  }

  /** Whether any caller waits for a reply or for the end. */
  get hasWaiters(): boolean {
    return (
      this.ends.length > 0 || (this.current?.waiters.length ?? 0) > 0 || this.queue.some((m) => m.waiters.length > 0)
    );
  }

  /**
   * The run continues as new before these callers get their replies: each is told to send its
   * message again with its key (the next run has the message and answers it); end requests to ask again.
   */
  releaseForNextRun(): void {
    for (const m of [...(this.current ? [this.current] : []), ...this.queue]) {
      for (const w of m.waiters.splice(0))
        w.reject(toApplicationFailure(new ConversationContinuedError(m.idempotencyKey, m.turn)));
    }
    for (const w of this.ends.splice(0))
      w.reject(toApplicationFailure(new ConversationContinuedError('endConversation', 0, 'end')));
  }

  /** The messages still to answer, as the next run takes them. */
  carried(): QueuedMessage[] {
    return this.queue.map(({ waiters: _w, ...m }) => m);
  }

  private take(raw: SendMessageInput, updateId: string | undefined, waiter: Waiter<Reply>): void {
    const state = this.state!;
    const key = raw.idempotencyKey;
    const remembered = key !== undefined ? state.replies.find((r) => r.idempotencyKey === key) : undefined;
    if (remembered) return settleOne(waiter, remembered);
    const same =
      key !== undefined
        ? ([this.current, ...this.queue].find((m) => m?.idempotencyKey === key) ??
          (this.interrupted(key) && hasPatch(Patches.MERGED_MESSAGE_KEYS) ? this.current : undefined))
        : undefined;
    if (same) return this.stranding ? waiter.reject(this.stranded(same)) : void same.waiters.push(waiter);
    // Behind a stranded turn a message waits its turn, whatever its mid-turn policy.
    const outcome =
      this.current && this.midTurn && !this.stranding ? this.midTurn.arrive(raw, waiter, this.current) : 'queue';
    if (outcome === 'handled') return;
    const turn = ++state.turns;
    const m: Inbound = {
      turn,
      message: raw.message,
      idempotencyKey: keyOf(key, turn),
      ...(updateId ? { updateId } : {}),
      waiters: this.stranding ? [] : [waiter],
    };
    if (outcome === 'queue_first') this.queue.unshift(m);
    else this.queue.push(m);
    if (this.stranding) waiter.reject(this.stranded(m));
  }

  /** What the caller of `m` is told while the current turn waits for a worker. */
  private stranded(m: QueuedMessage): ApplicationFailure {
    const { turn, ...s } = this.stranding!;
    return toApplicationFailure(
      new TurnStrandedError({
        workflowId: this.workflowId,
        turn: m.turn,
        idempotencyKey: m.idempotencyKey,
        strandedTurn: turn,
        ...s,
      }),
    );
  }

  /** A message by its key, or a waiting or answered one whose key starts with a prefix (the `message` query). */
  lookup(find: MessageLookup): MessageLookupResult {
    const turns = this.state?.turns ?? 0;
    const pending = [...(this.current ? [this.current] : []), ...this.queue];
    const view = (m: Inbound): MessageView => ({
      idempotencyKey: m.idempotencyKey,
      status: m === this.current ? 'answering' : 'queued',
      turn: m.turn,
    });
    if (typeof find !== 'object' || find === null) return { message: null, turns };
    if ('pendingWithPrefix' in find && typeof find.pendingWithPrefix === 'string' && find.pendingWithPrefix !== '') {
      const prefix = find.pendingWithPrefix;
      const m = pending.find((p) => p.idempotencyKey.startsWith(prefix));
      return {
        message: m ? view(m) : null,
        turns,
        answered: (this.state?.replies ?? []).flatMap((r) =>
          r.idempotencyKey.startsWith(prefix) ? [r.idempotencyKey] : [],
        ),
      };
    }
    const key = 'idempotencyKey' in find ? find.idempotencyKey : undefined;
    if (typeof key !== 'string') return { message: null, turns };
    // A message that interrupted the turn is answered with it.
    const m = pending.find((p) => p.idempotencyKey === key) ?? (this.interrupted(key) ? this.current : undefined);
    if (m) return { message: view(m), turns };
    const r = this.state?.replies.find((x) => x.idempotencyKey === key);
    if (!r) return { message: null, turns };
    return {
      message: r.reply
        ? { idempotencyKey: key, status: 'answered', turn: r.reply.turn, reply: r.reply }
        : { idempotencyKey: key, status: 'failed', ...(r.failure ? { failure: r.failure } : {}) },
      turns,
    };
  }

  /** Whether a key's message is remembered, being answered (on its own, or having interrupted the turn) or waiting. */
  private knows(key: string): boolean {
    return (
      this.state!.replies.some((r) => r.idempotencyKey === key) ||
      [this.current, ...this.queue].some((m) => m?.idempotencyKey === key) ||
      this.interrupted(key)
    );
  }

  /** Whether the message of `key` interrupted the running turn and is answered with it. */
  private interrupted(key: string): boolean {
    return this.current !== undefined && (this.state?.current?.merged?.includes(key) ?? false);
  }
}

function settleOne(w: Waiter<Reply>, outcome: RememberedReply): void {
  if (outcome.reply) w.resolve(outcome.reply);
  else
    w.reject(
      ApplicationFailure.create({
        type: outcome.failure?.type,
        message: outcome.failure?.message,
        nonRetryable: true,
        details: outcome.failure?.details !== undefined ? [outcome.failure.details] : [],
      }),
    );
}
