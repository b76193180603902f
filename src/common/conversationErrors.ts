/**
 * The conversation's own errors: a message to a conversation that ended, one whose run continued as
 * new before answering it, one refused or rolled back under its mid-turn policy, and (from
 * `stranded.ts`) a turn that found no worker with its team; {@link CONVERSATION_ERRORS} lists them
 * by failure type. Workflow-safe (no I/O).
 */
import { BatonError, UserError } from './errors';
import { TurnStrandedError } from './stranded';

/** A message sent to a conversation that has ended or is ending. */
export class ConversationEndedError extends UserError<{ workflowId: string }> {
  declare readonly workflowId: string;
  constructor(workflowId: string, ending = false) {
    super(`Conversation ${workflowId} ${ending ? 'is ending' : 'has ended'}: it takes no more messages`, {
      workflowId,
    });
  }
}

/**
 * The run that took a message continued as new before answering it (a turn waiting for an
 * approval while history grew, or a message queued behind it). The message is not lost: send it
 * again with the same `idempotencyKey` to get its reply from the next run. An end request
 * (`request: 'end'`) is carried into the next run, which ends once the messages it took are
 * answered; send it again for the result. `baton.conversation()` does both by itself.
 */
export class ConversationContinuedError extends BatonError<{
  idempotencyKey: string;
  turn: number;
  request: 'message' | 'end' | 'migrate';
}> {
  declare readonly idempotencyKey: string;
  declare readonly turn: number;
  declare readonly request: 'message' | 'end' | 'migrate';
  constructor(idempotencyKey: string, turn: number, request: 'message' | 'end' | 'migrate' = 'message') {
    super(
      request === 'end'
        ? 'The conversation continued in a new run before it could end; the new run ends it once the messages it took are answered: send the end request (endConversation) again for its result'
        : request === 'migrate'
          ? 'The conversation continued in a new run before it could move onto the current team: send the migration (migrateConversation) again'
          : `The conversation continued in a new run before answering message ${turn}; send it again with idempotencyKey "${idempotencyKey}" for its reply`,
      { idempotencyKey, turn, request },
    );
  }
}

/** A message refused because it arrived while another was answered, under the `reject` mid-turn policy. */
export class ConversationBusyError extends UserError<{ workflowId: string; turn: number }> {
  declare readonly workflowId: string;
  /** The turn being answered when the message arrived. */
  declare readonly turn: number;
  constructor(workflowId: string, turn: number) {
    super(
      `Conversation ${workflowId} is answering message ${turn} and refuses messages until it is done (midTurn: "reject"): send it again once the reply came, or with midTurn "enqueue"`,
      { workflowId, turn },
    );
  }
}

/**
 * A message whose turn was discarded because a later message arrived under the `rollback`
 * mid-turn policy: the conversation went on as it was before the message, and answered the later one.
 */
export class MessageRolledBackError extends UserError<{ workflowId: string; turn: number; by: string }> {
  declare readonly workflowId: string;
  declare readonly turn: number;
  /** The idempotency key of the message answered instead. */
  declare readonly by: string;
  constructor(workflowId: string, turn: number, by: string) {
    super(
      `Message ${turn} of conversation ${workflowId} was rolled back for a later message (idempotencyKey "${by}", midTurn: "rollback"): it was not answered`,
      { workflowId, turn, by },
    );
  }
}

/** The conversation's own errors, by failure type. */
export const CONVERSATION_ERRORS = {
  ConversationEndedError,
  ConversationContinuedError,
  ConversationBusyError,
  MessageRolledBackError,
  TurnStrandedError,
} as const;
