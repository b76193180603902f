/**
 * A message that arrives while another is answered, under the conversation's (or the message's)
 * mid-turn policy: it waits its turn (`enqueue`), is refused (`reject`), stops the running turn's
 * model call and is answered with the message being answered (`interrupt`: a steering message of
 * the turn), or discards the running turn and is answered first (`rollback`). Each outcome is on
 * the record (`batonLive`).
 */
import { CancellationScope, isCancellation } from '@temporalio/workflow';
import {
  type ConversationReply,
  type ConversationState,
  MidTurnPolicy,
  type SendMessageInput,
} from '../../src/common/conversation';
import { ConversationBusyError } from '../../src/common/conversationErrors';
import { toApplicationFailure } from '../../src/common/errors';
import { LIMITS } from '../../src/common/limits';
import type { LiveRecord } from '../../src/common/live';
import { LIVE_MEMO } from '../../src/common/messages';
import type { ChainEffects } from '../chain/effects';
import type { Steering } from '../live/steering';

interface Waiter {
  resolve(value: ConversationReply<unknown>): void;
  reject(err: unknown): void;
}

/** What the inbox does with a message that arrives mid-turn: take it as usual, put it first, or nothing more (handled here). */
export type MidTurnOutcome = 'queue' | 'queue_first' | 'handled';

export class MidTurn {
  /** The key of the message the running turn is being rolled back for. */
  rollbackFor?: string;
  #scope?: CancellationScope;

  constructor(
    private readonly workflowId: string,
    private readonly state: ConversationState,
    private readonly effects: Pick<ChainEffects, 'now' | 'publish'>,
    private readonly steering: Steering,
  ) {}

  /** A message that arrives while `current` (the inbox's message being answered, with its callers) is answered. */
  arrive(raw: SendMessageInput, waiter: Waiter, current: { waiters: Waiter[] } | undefined): MidTurnOutcome {
    const turn = this.state.current;
    const policy = raw.midTurn ?? this.state.conversation.midTurn ?? MidTurnPolicy.ENQUEUE;
    if (!turn || !current || policy === MidTurnPolicy.ENQUEUE) return 'queue';
    const at = new Date(this.effects.now()).toISOString();
    const key = raw.idempotencyKey ?? `${turn.idempotencyKey}+${(turn.merged?.length ?? 0) + 1}`;
    switch (policy) {
      case MidTurnPolicy.REJECT:
        this.record({ type: 'message_rejected', turn: turn.turn, idempotencyKey: key, at });
        waiter.reject(toApplicationFailure(new ConversationBusyError(this.workflowId, turn.turn)));
        return 'handled';
      case MidTurnPolicy.INTERRUPT:
        // Too many steering messages wait already: this one waits its turn instead.
        if (this.steering.waiting.length >= LIMITS.waitingSteers) return 'queue';
        turn.merged = [...(turn.merged ?? []), key];
        current.waiters.push(waiter);
        this.record({ type: 'message_interrupted', turn: turn.turn, idempotencyKey: key, at });
        this.steering.receive({ text: raw.message, by: `message ${key}`, interrupt: true });
        return 'handled';
      case MidTurnPolicy.ROLLBACK:
        if (this.rollbackFor !== undefined) return 'queue';
        this.rollbackFor = key;
        this.#scope?.cancel();
        return 'queue_first';
      default:
        return 'queue';
    }
  }

  /** Run the turn's chain so that a rollback can stop it; `rolledBack` says whether one did. */
  async run<T>(chain: () => Promise<T>): Promise<{ value: T } | { rolledBack: string }> {
    const scope = new CancellationScope();
    this.#scope = scope;
    try {
      // A rollback asked for before the turn started stops it at once.
      if (this.rollbackFor !== undefined) scope.cancel();
      return { value: await scope.run(chain) };
    } catch (err) {
      const key = this.rollbackFor;
      if (key === undefined || !isCancellation(err)) throw err;
      // On the record once the turn is in fact discarded (it may have ended as the message came).
      this.record({
        type: 'turn_rolled_back',
        turn: this.state.current?.turn ?? 0,
        forIdempotencyKey: key,
        at: new Date(this.effects.now()).toISOString(),
      });
      return { rolledBack: key };
    } finally {
      this.#scope = undefined;
      this.rollbackFor = undefined;
    }
  }

  private record(record: LiveRecord): void {
    this.effects.publish({ [LIVE_MEMO]: record });
  }
}
