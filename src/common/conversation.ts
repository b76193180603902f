/**
 * A conversation as other programs see it: the `conversation` workflow's input, each message and
 * its reply, what a query answers, what continue-as-new carries and what its memos record; its
 * errors are in `conversationErrors.ts`. Plain JSON; workflow-safe (no I/O).
 */
import type { PendingApproval } from './approvals';
import type { ConversationOptions, ResolvedConversationOptions } from './conversationOptions';
import type { RunOptions } from './options';
import type { HandoffRecord, Usage } from './run';
import type { ChainState } from './state';
import type { RunContext } from './team';
import type { TurnStranding } from './stranded';

/**
 * Input of the `conversation` workflow: plain JSON, so any Temporal client can start one (with
 * update-with-start, together with its first message).
 */
export interface ConversationInput {
  /** The agent that answers first; after a handoff, its target answers the next messages. */
  agent: string;
  /** Options of the chain each message runs (limits, timeouts, approvals, `continueAsNewAfterEvents`). */
  options?: RunOptions;
  /** Options of the conversation itself: idle timeout, compaction, idempotency window. */
  conversation?: ConversationOptions;
  /** Application data every tool call of the conversation receives. */
  context?: RunContext;
  /** The conversation to continue: set by the workflow when it continues as new. Other callers leave it out. */
  resume?: ConversationState;
}

/**
 * What a message that arrives while another is answered does: waits its turn (`enqueue`), is
 * refused with `ConversationBusyError` (`reject`), stops the running turn's model call and is
 * answered together with the message being answered, keeping what the turn already did
 * (`interrupt`), or discards the running turn and is answered instead (`rollback`; the discarded
 * message's callers get `MessageRolledBackError`).
 */
export const MidTurnPolicy = {
  ENQUEUE: 'enqueue',
  REJECT: 'reject',
  INTERRUPT: 'interrupt',
  ROLLBACK: 'rollback',
} as const;
export type MidTurnPolicy = (typeof MidTurnPolicy)[keyof typeof MidTurnPolicy];

/** Input of the `sendMessage` update. */
export interface SendMessageInput {
  /** What to do when the message arrives while another is answered. @default the conversation's `midTurn` option */
  midTurn?: MidTurnPolicy;
  message: string;
  /**
   * The same key sent again returns the first reply without running the turn again (within the
   * last `idempotencyWindow` replies); a key whose turn is still running waits for that turn.
   */
  idempotencyKey?: string;
}

/** Result of the `sendMessage` update: the answer to one message. */
export interface ConversationReply<Output = string> {
  /** 1-based number of the message in the conversation. */
  turn: number;
  /** The answer: its text, or the parsed value when the answering agent has an `outputType`. */
  output: Output;
  /** The agent that answered: the active agent from now on. */
  agent: string;
  /** The handoffs of this turn, in order. */
  handoffs: HandoffRecord[];
  /** What this turn used. */
  usage: Usage;
  /** The key the reply is remembered by: the caller's, or `#<turn>` when the message came without one. */
  idempotencyKey: string;
  /** The agent the next message goes to, when the answering agent handed the conversation back (`returnTo`). */
  handedBackTo?: string;
}

/** How a conversation ended. */
export type ConversationEnd = 'requested' | 'idle_timeout';

/** Result of the `conversation` workflow, and of the `endConversation` update. */
export interface ConversationResult {
  endedBy: ConversationEnd;
  /** Messages answered (or failed). */
  turns: number;
  /** The agent that answered last. */
  agent: string;
  handoffs: number;
  compactions: number;
  usage: Usage;
  /** Runs of the workflow, continue-as-new included. */
  runs: number;
}

/** Where a conversation is, as the `conversation` query answers. */
export interface ConversationView {
  /** `waiting_for_worker`: the message being answered waits for a worker of its team (`current.stranded` says which). */
  status: 'idle' | 'answering' | 'awaiting_approval' | 'waiting_for_worker' | 'ending' | 'ended';
  /** The agent the next message goes to (or the one answering now). */
  activeAgent: string;
  /** Messages taken so far, the one being answered included. */
  turns: number;
  /** The message being answered. */
  current?: { turn: number; message: string; idempotencyKey: string; stranded?: TurnStranding };
  /** Messages waiting behind it, in the order they arrived. */
  queued: number;
  pendingApprovals: PendingApproval[];
  usage: Usage;
  handoffs: number;
  compactions: number;
  /** Runs of the workflow so far, this one included. */
  runs: number;
  /** The last reply, when a message was answered. */
  lastReply?: ConversationReply<unknown>;
}

/** Which message the `message` query looks for: the one sent with a key, or one still waiting or being answered whose key starts with a prefix. */
export type MessageLookup = { idempotencyKey: string } | { pendingWithPrefix: string };

/** A message as the `message` query finds it, by its idempotency key. */
export interface MessageView {
  idempotencyKey: string;
  /** Waiting for its turn, being answered, answered, or its turn failed. */
  status: 'queued' | 'answering' | 'answered' | 'failed';
  turn?: number;
  reply?: ConversationReply<unknown>;
  failure?: { type: string; message: string; details?: unknown };
}

/** What the `message` query answers: the message found (or `null`), and how many messages the conversation has taken. */
export interface MessageLookupResult {
  message: MessageView | null;
  turns: number;
  /** For a prefix: the keys with it among the replies the conversation remembers. */
  answered?: string[];
}

/** A message taken but not yet answered. */
export interface QueuedMessage {
  turn: number;
  message: string;
  idempotencyKey: string;
  /** The id of the update that brought it, for the audit. */
  updateId?: string;
}

/** A turn's outcome remembered for a resend of its key: the reply, or the failure it ended with. */
export interface RememberedReply {
  idempotencyKey: string;
  reply?: ConversationReply<unknown>;
  failure?: { type: string; message: string; details?: unknown };
}

/** The message being answered, with what to restore if its turn fails. */
export interface CurrentTurn extends QueuedMessage {
  /** Workflow time the turn started, ISO 8601. */
  startedAt: string;
  /** The agent, its conversation and the shared state before the turn. */
  before: Pick<ChainState, 'agentId' | 'messages' | 'shared'>;
  /** Keys of messages that interrupted the turn and are answered with it (`midTurn: "interrupt"`). */
  merged?: string[];
  /** Set while a step of the turn waits for a worker that has the turn's team. */
  stranded?: TurnStranding;
}

/** What a conversation carries from one run into the next (continue-as-new). */
export interface ConversationState {
  /** The active agent, its conversation, the shared state; the chain of the turn in progress when there is one. */
  chain: ChainState;
  conversation: ResolvedConversationOptions;
  /** Messages taken so far. */
  turns: number;
  current?: CurrentTurn;
  queued: QueuedMessage[];
  /** The last `idempotencyWindow` outcomes, oldest first. */
  replies: RememberedReply[];
  /** Every turn's usage and the compactions'. */
  usage: Usage;
  handoffs: number;
  compactions: number;
  /** Workflow time of the last reply (or the start), ISO 8601: the idle timeout counts from here. */
  lastActiveAt: string;
  /** An `endConversation` arrived: the conversation ends once the messages it took are answered. */
  ending?: boolean;
  /** Runs before this one. */
  continuedRuns: number;
  /**
   * The worker deployment version (`<deployment>.<buildId>`) the team snapshot was taken on: on a
   * worker of another version, the next turn starts with a new snapshot.
   */
  teamDeployment?: string;
  /** A turn failed because no worker had the conversation's team: the next turn starts with a new snapshot. */
  refreshTeam?: boolean;
}

/** A turn starting, as the `batonTurn` memo records it. */
export interface TurnStartedRecord {
  phase: 'started';
  turn: number;
  idempotencyKey: string;
  updateId?: string;
  agent: string;
  at: string;
}

/** A turn ending, as the `batonTurn` memo records it. */
export interface TurnEndedRecord {
  phase: 'answered' | 'failed';
  turn: number;
  reply?: ConversationReply<unknown>;
  failure?: { type: string; message: string };
  at: string;
}

/** A compaction or the end, as the `batonConversationEvent` memo records it. */
export type ConversationEvent =
  | {
      type: 'compacted';
      afterTurn: number;
      agent: string;
      summarizedMessages: number;
      keptMessages: number;
      tokensBefore: number;
      tokensAfter: number;
      at: string;
    }
  | { type: 'ended'; endedBy: ConversationEnd; turns: number; at: string }
  /**
   * The conversation took a new team snapshot between turns ("team support@v1 → support@v2 before
   * turn 7"), or (`by: 'migration'`) a migration moved the turn `beforeTurn` onto the current team.
   */
  | {
      type: 'team_changed';
      from: string;
      to: string;
      beforeTurn: number;
      deployment?: string;
      agent: string;
      at: string;
      by?: 'migration';
    }
  /** A step of turn `turn` was refused by a worker that lacks the turn's team: the turn waits for one (its callers were told). */
  | ({ type: 'turn_stranded'; turn: number; at: string } & Omit<TurnStranding, 'since'>);
