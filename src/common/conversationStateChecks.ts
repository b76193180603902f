/**
 * Checks of the state a conversation carries into its next run: its queued and current turns, the
 * replies it remembers, its resolved options and the chain state beneath them (stateChecks.ts).
 * A state that does not pass fails the run at once rather than later.
 *
 * Workflow-safe: no I/O.
 */
import {
  anything,
  arrayOf,
  boolean,
  type Check,
  count,
  integer,
  isoTime,
  isRecord,
  nonEmptyString,
  shapeOf,
  string,
} from './check';
import type { ConversationReply, ConversationState, CurrentTurn, QueuedMessage, RememberedReply } from './conversation';
import {
  CONVERSATION_OPTION_KEYS,
  conversationOptionProblems,
  type ResolvedConversationOptions,
} from './conversationOptions';
import { usageCheck } from './economics/checks';
import { chatMessagesCheck } from './messageChecks';
import { chainStateCheck, handoffRecordCheck, sharedStateCheck } from './stateChecks';
import type { TurnStranding } from './stranded';

const queuedMessage = shapeOf<QueuedMessage>()(
  { turn: integer(1, Number.MAX_SAFE_INTEGER), message: string, idempotencyKey: nonEmptyString, updateId: string },
  ['updateId'],
);

const currentTurn = shapeOf<CurrentTurn>()(
  {
    turn: count,
    message: string,
    idempotencyKey: nonEmptyString,
    updateId: string,
    startedAt: isoTime,
    before: shapeOf<CurrentTurn['before']>()(
      { agentId: nonEmptyString, messages: chatMessagesCheck, shared: sharedStateCheck },
      ['shared'],
    ),
    merged: arrayOf(nonEmptyString, 'idempotency keys'),
    stranded: shapeOf<TurnStranding>()({
      version: string,
      worker: string,
      step: string,
      missing: arrayOf(string, 'missing parts'),
      since: isoTime,
    }),
  },
  ['updateId', 'merged', 'stranded'],
);

const conversationReply = shapeOf<ConversationReply<unknown>>()(
  {
    turn: count,
    output: anything,
    agent: nonEmptyString,
    handoffs: arrayOf(handoffRecordCheck, 'handoff records'),
    usage: usageCheck,
    idempotencyKey: nonEmptyString,
    handedBackTo: nonEmptyString,
  },
  ['handedBackTo'],
);

const rememberedReply = shapeOf<RememberedReply>()(
  {
    idempotencyKey: nonEmptyString,
    reply: conversationReply,
    failure: shapeOf<NonNullable<RememberedReply['failure']>>()({ type: string, message: string, details: anything }, [
      'details',
    ]),
  },
  ['reply', 'failure'],
);

const resolvedConversationOptions: Check<ResolvedConversationOptions> = (v, key) => {
  const problems = conversationOptionProblems(v, key);
  if (problems.length > 0 || !isRecord(v)) return problems;
  // `midTurn` and `maxCost` came later: a conversation carried from before them goes on with their defaults.
  return CONVERSATION_OPTION_KEYS.filter((k) => v[k] === undefined && k !== 'midTurn' && k !== 'maxCost').map(
    (k) => `"${key}.${k}" is missing`,
  );
};

/** Problems with a carried conversation, its chain's state included. */
export const conversationStateCheck: Check<ConversationState> = shapeOf<ConversationState>()(
  {
    chain: chainStateCheck,
    conversation: resolvedConversationOptions,
    turns: count,
    current: currentTurn,
    queued: arrayOf(queuedMessage, 'queued messages'),
    replies: arrayOf(rememberedReply, 'remembered replies'),
    usage: usageCheck,
    handoffs: count,
    compactions: count,
    lastActiveAt: isoTime,
    ending: boolean,
    continuedRuns: count,
    teamDeployment: nonEmptyString,
    refreshTeam: boolean,
  },
  ['current', 'ending', 'teamDeployment', 'refreshTeam'],
);
