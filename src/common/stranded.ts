/**
 * A conversation's turn stranded by a deploy: a step of it needs a part of the team the turn runs on
 * that no worker polling now has (its workers are gone). The turn is kept, with its approvals, and
 * waits for a worker of its team; its callers are told at once, and a migration moves it onto the
 * team the workers run now. Plain JSON; workflow-safe (no I/O).
 */
import { SystemError } from './errors';

/** What a stranded turn waits for, as the conversation query shows it (`current.stranded`). */
export interface TurnStranding {
  /** The team version the turn runs on, which no worker polling now has. */
  version: string;
  /** The team of the worker that refused the step. */
  worker: string;
  /** The step refused, e.g. `tool "issueRefund" of agent "refunds"`. */
  step: string;
  /** What that worker lacks. */
  missing: string[];
  /** Workflow time of the first refusal, ISO 8601. */
  since: string;
}

/** What a migration of a conversation onto the current team did (the `migrateConversation` update's answer). */
export interface ConversationMigration {
  /** The team version the conversation ran on. */
  from: string;
  /** The team version it goes on with. */
  to: string;
  /** The turn that went on with the new team, when one was stranded; absent when the next turn takes it. */
  turn?: number;
}

/**
 * A message whose turn waits for a worker of the team it runs on (or that waits behind such a
 * turn): no worker polling now has what a step of it needs. The turn is not lost, and neither are
 * the approvals given in it: it goes on when a worker of that team version polls again, or on the
 * current team after a migration (`baton replay --on-current-team <conversationId>`,
 * `baton.migrateConversation`). Send the message again with its `idempotencyKey` for its reply.
 */
export class TurnStrandedError extends SystemError<{
  workflowId: string;
  turn: number;
  idempotencyKey: string;
  strandedTurn: number;
  version: string;
  worker: string;
  step: string;
  missing: string[];
}> {
  declare readonly workflowId: string;
  /** The caller's message. */
  declare readonly turn: number;
  declare readonly idempotencyKey: string;
  /** The turn that waits for a worker: the caller's own, or the one its message waits behind. */
  declare readonly strandedTurn: number;
  /** The team version the stranded turn runs on. */
  declare readonly version: string;
  /** The team of the workers polling now. */
  declare readonly worker: string;
  declare readonly step: string;
  declare readonly missing: string[];
  constructor(
    details: { workflowId: string; turn: number; idempotencyKey: string; strandedTurn: number } & Omit<
      TurnStranding,
      'since'
    >,
  ) {
    const behind = details.turn === details.strandedTurn ? '' : ` waits behind message ${details.strandedTurn}, which`;
    super(
      `Message ${details.turn} of conversation ${details.workflowId}${behind} waits for a worker of team ${details.version}: ${details.step} needs ${details.missing.join('; ')}, which the workers polling now (team ${details.worker}) lack. ` +
        `Nothing is lost: the turn and its approvals wait for such a worker; to go on with the team the workers run now, run \`baton replay --on-current-team ${details.workflowId}\` (baton.migrateConversation). ` +
        `Send the message again with idempotencyKey "${details.idempotencyKey}" for its reply.`,
      {
        workflowId: details.workflowId,
        turn: details.turn,
        idempotencyKey: details.idempotencyKey,
        strandedTurn: details.strandedTurn,
        version: details.version,
        worker: details.worker,
        step: details.step,
        missing: details.missing,
      },
    );
  }
}
