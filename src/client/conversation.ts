/**
 * A conversation from a service: `baton.conversation(agent, {id})` → send messages, read the
 * history, end it. Each `send` is one update-with-start, so the first message starts the
 * conversation and a stateless caller needs only its id.
 */
import { randomUUID } from 'node:crypto';
import {
  type Client,
  type WorkflowHandle,
  WorkflowExecutionAlreadyStartedError,
  WorkflowUpdateStage,
} from '@temporalio/client';
import type { conversation as conversationWorkflow } from '../../workflows/conversation';
import { auditConversation, type ConversationAudit } from '../audit/conversation';
import {
  type ConversationInput,
  type ConversationReply,
  type ConversationResult,
  type ConversationView,
  type MidTurnPolicy,
} from '../common/conversation';
import { ConversationEndedError } from '../common/conversationErrors';
import { conversationError, endedFirst, nextRun, rememberedReply, sendAgain } from './conversationErrors';
import { InputTooLargeError, InvalidRunInputError } from '../common/errors';
import { sendMessageProblems } from '../common/input';
import { messageSizes } from '../common/sizes';
import { Experiments, type VariantStart } from './experiments';
import { laneOf } from './lanes';
import { conversationQuery, endConversationUpdate, sendMessageUpdate } from '../common/messages';
import type { ConversationMigration } from '../common/stranded';
import type { HandoffRecord } from '../common/run';
import { streamsFromEnv } from '../streams/env';
import { streamMessage, type MessageStreamItem } from '../streams/message';
import { conversationStart, conversationStartOperation, type ConversationStartOptions } from './conversationStart';
import { migrateConversation } from './conversationReplay';
import { stoppedCallsOf } from './stoppedCalls';
import type { StreamTransport } from '../streams/types';

export { conversationError } from './conversationErrors';

/** One turn as `Conversation.history` lists it. */
export interface ConversationTurn<Output = string> {
  turn: number;
  message?: string;
  /** Absent while the turn is answered, and when it failed. */
  output?: Output;
  /** The agent that answered (or, while answering, the one the message went to). */
  agent: string;
  handoffs: HandoffRecord[];
  failure?: { type: string; message: string };
}

/** Options of one message: {@link Conversation.send}, {@link Conversation.stream}. */
export interface SendOptions {
  /** Sent again with the same key, the message gets its first reply. @default a new key */
  idempotencyKey?: string;
  /**
   * What happens when the message arrives while another is answered (see {@link MidTurnPolicy}).
   * @default the conversation's `midTurn` option
   */
  midTurn?: MidTurnPolicy;
  /**
   * Called once the conversation accepted the message, before its reply: it has its turn, or it was
   * refused as it arrived (the `reject` mid-turn policy: the reply then throws `ConversationBusyError`).
   * Called again if it follows the conversation into a new run.
   */
  taken?: () => void;
}

/**
 * A conversation with a team, starting at an agent; the agent a handoff hands to answers the next
 * messages. Messages sent while one is answered are answered in the order they were sent.
 * @example
 * const chat = baton.conversation('triage', { id: 'support-c-7' });
 * const { output, agent } = await chat.send('I want a refund for order 42');
 * await chat.end();
 */
export class Conversation<Output = string> {
  readonly id: string;
  private readonly input: ConversationInput;
  private readonly experiment?: string;
  private variant?: Promise<VariantStart>;

  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
    readonly agent: string,
    options: ConversationStartOptions = {},
    private readonly streams: StreamTransport = streamsFromEnv(),
  ) {
    const start = conversationStart(agent, options);
    this.id = start.id;
    this.input = start.input;
    if (start.experiment !== undefined) this.experiment = start.experiment;
  }

  /** The Temporal handle of the conversation's workflow (its latest run). */
  get handle(): WorkflowHandle<typeof conversationWorkflow> {
    return this.client.workflow.getHandle<typeof conversationWorkflow>(this.id);
  }

  /**
   * Send a message and wait for its reply; starts the conversation when it does not exist yet. The
   * message goes with an idempotency key (a new one unless given): sent again, the same key gets the
   * first reply, also from a conversation that ended since. A conversation that ended throws
   * `ConversationEndedError` for a message it did not answer; a failed turn throws the
   * chain's typed error and the conversation goes on as it was before the message. A message over
   * its limit (`LIMITS.messageBytes`) throws `InputTooLargeError` before anything is sent.
   *
   * Messages sent at once, from here or from other handles on the same client, are taken in the
   * order they were sent: each is sent once the one before was taken, with at most
   * `MAX_MESSAGES_IN_FLIGHT` taken and not yet answered (Temporal takes 10 updates in flight per
   * workflow); the rest wait in this process.
   */
  async send(message: string, options: SendOptions = {}): Promise<ConversationReply<Output>> {
    const args = {
      message,
      idempotencyKey: options.idempotencyKey ?? randomUUID(),
      ...(options.midTurn !== undefined ? { midTurn: options.midTurn } : {}),
    };
    const sizes = messageSizes(args);
    if (sizes.length > 0) throw new InputTooLargeError(sizes);
    const problems = sendMessageProblems(args);
    if (problems.length > 0) throw new InvalidRunInputError(problems);
    const variant =
      this.experiment !== undefined
        ? await (this.variant ??= new Experiments(this.client, this.taskQueue).variantStart(
            this.experiment,
            this.id,
            this.input.context,
            this.input.options ?? {},
            this.taskQueue,
          ))
        : undefined;
    for (let hop = 0, since = Date.now(); ; hop++) {
      try {
        return (await laneOf(this.client, this.id).run(
          () =>
            this.client.workflow.startUpdateWithStart(sendMessageUpdate, {
              args: [args],
              startWorkflowOperation: conversationStartOperation(
                { id: this.id, taskQueue: this.taskQueue, agent: this.agent, input: this.input },
                variant,
              ),
              waitForStage: WorkflowUpdateStage.ACCEPTED,
            }),
          (taken) => {
            options.taken?.();
            return taken.result();
          },
        )) as ConversationReply<Output>;
      } catch (err) {
        // Sent again (by the caller with its key, or after a continue-as-new): the conversation may have answered it and then ended, its reply remembered.
        const mayKnow = hop > 0 || options.idempotencyKey !== undefined;
        if (err instanceof WorkflowExecutionAlreadyStartedError) {
          const reply = mayKnow
            ? ((await rememberedReply(this.handle, args.idempotencyKey)) as ConversationReply<Output> | undefined)
            : undefined;
          if (reply) return reply;
          throw new ConversationEndedError(this.id);
        }
        // The run that took the message ended before answering it: its failure says why (its input, or an agent the team lacks), or it answered it and ended.
        if (endedFirst(err)) {
          const outcome = await this.lastRunOutcome();
          const reply =
            outcome instanceof ConversationEndedError && mayKnow
              ? ((await rememberedReply(this.handle, args.idempotencyKey)) as ConversationReply<Output> | undefined)
              : undefined;
          if (reply) return reply;
          throw conversationError(outcome);
        }
        if (!sendAgain(err, since)) throw conversationError(err);
        await nextRun(hop);
      }
    }
  }

  /**
   * Send a message and follow its answer as it forms: the text of the model calls answering it
   * (`text` pieces at their offsets, `text_reset` when a call's text is to be dropped), then the
   * `reply`. Applying the text changes in order (`applyChange`) ends with the reply's text: the text
   * of a call an interrupt stopped is dropped (`text_reset`, reason `stopped`) when the reply comes. Sent as
   * {@link Conversation.send} sends (same checks, order and errors, thrown from the iteration).
   * @example for await (const x of chat.stream('Where is order 42?')) if (x.kind === 'text') process.stdout.write(x.text);
   */
  async *stream(
    message: string,
    options: SendOptions & { signal?: AbortSignal } = {},
  ): AsyncGenerator<MessageStreamItem<ConversationReply<Output>>> {
    const { signal, ...send } = options;
    const idempotencyKey = send.idempotencyKey ?? randomUUID();
    const from = await this.streams.last(this.id).catch(() => undefined);
    yield* streamMessage(this.streams, this.id, idempotencyKey, from, this.send(message, { ...send, idempotencyKey }), {
      ...(signal ? { signal } : {}),
      stopped: stoppedCallsOf(this.client, this.id),
    });
  }

  /** How the latest run ended, as an error: its failure, or `ConversationEndedError` when it completed (not following a continued run). */
  private lastRunOutcome(): Promise<unknown> {
    const run = this.client.workflow.getHandle<typeof conversationWorkflow>(this.id, undefined, { followRuns: false });
    return run.result().then(
      () => new ConversationEndedError(this.id),
      (e: unknown) => e,
    );
  }

  /** Where the conversation is: the active agent, the message being answered, approvals waiting (a query). */
  status(): Promise<ConversationView> {
    return this.handle.query(conversationQuery);
  }

  /** The turns so far, from history (across continue-as-new runs): each message, its answer, its handoffs. */
  async history(): Promise<ConversationTurn<Output>[]> {
    const audit = await this.audit();
    return audit.turns.map((t) => ({
      turn: t.turn,
      ...(t.message !== undefined ? { message: t.message } : {}),
      ...(t.status === 'answered' ? { output: t.output as Output } : {}),
      agent: t.answeredBy ?? t.agent,
      handoffs: t.handoffs,
      ...(t.failure ? { failure: t.failure } : {}),
    }));
  }

  /** The conversation rebuilt from its history: turns with messages, handoffs, approvals and calls; compactions; the end. */
  audit(): Promise<ConversationAudit> {
    return auditConversation(this.client, this.id);
  }

  /**
   * End the conversation once the messages it took are answered; resolves with its result (at once
   * when it has ended). Messages sent before it from this client are taken first.
   */
  async end(): Promise<ConversationResult> {
    for (let hop = 0, since = Date.now(); ; hop++) {
      try {
        return await laneOf(this.client, this.id).run(
          () => this.handle.startUpdate(endConversationUpdate, { waitForStage: WorkflowUpdateStage.ACCEPTED }),
          (taken) => taken.result(),
        );
      } catch (err) {
        if (sendAgain(err, since)) {
          await nextRun(hop);
          continue;
        }
        const ended = await this.handle.describe().catch(() => undefined);
        if (ended && ended.status.name === 'COMPLETED') return this.handle.result();
        throw conversationError(err);
      }
    }
  }

  /**
   * Move the conversation onto the team the workers run now: a turn waiting for a worker of its
   * team (its callers got `TurnStrandedError`) goes on from its last step on the current team, the
   * approvals given in it standing; between turns, the next turn takes the current team. Resolves
   * once moved. The same as `baton replay --on-current-team <id>`.
   */
  migrate(): Promise<ConversationMigration> {
    return migrateConversation(this.client, this.id);
  }

  /** Wait until the conversation ends (on request or after its idle timeout). */
  async result(): Promise<ConversationResult> {
    try {
      return await this.handle.result();
    } catch (err) {
      throw conversationError(err);
    }
  }
}
