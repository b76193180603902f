/** The conversation workflow's updates, queries and memo keys (re-exported by `messages.ts`, with every contract name). */
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type {
  ConversationReply,
  ConversationResult,
  ConversationView,
  MessageLookup,
  MessageLookupResult,
  SendMessageInput,
} from './conversation';
import type { ConversationMigration } from './stranded';

/**
 * Update: a user message for a conversation; answers with the reply once its turn is done. Messages
 * sent while one is answered wait in the order they arrived. A key sent again gets the first reply.
 */
export const sendMessageUpdate = defineUpdate<ConversationReply<unknown>, [SendMessageInput]>('sendMessage');

/** Update: end a conversation once the messages it took are answered; answers with its result. */
export const endConversationUpdate = defineUpdate<ConversationResult, []>('endConversation');

/**
 * Update: move a conversation onto the team the workers run now (`baton replay --on-current-team <id>`): a
 * turn waiting for a worker of its team goes on from its last good step on the current team, its
 * approvals standing; between turns, the next turn takes the current team. Answers once applied.
 */
export const migrateConversationUpdate = defineUpdate<ConversationMigration, []>('migrateConversation');

/** Query: where a conversation is: its active agent, the message being answered, what waits. */
export const conversationQuery = defineQuery<ConversationView>('conversation');

/** Query: a message by its idempotency key (waiting, being answered, or its remembered reply), so a caller can follow one it sent. */
export const messageQuery = defineQuery<MessageLookupResult, [MessageLookup]>('message');

/** Memo key of a conversation's turn records (`TurnStartedRecord`, `TurnEndedRecord`); every upsert is a history event. */
export const TURN_MEMO = 'batonTurn';
/** Memo key of a conversation's compactions and its end (`ConversationEvent`). */
export const CONVERSATION_EVENT_MEMO = 'batonConversationEvent';
