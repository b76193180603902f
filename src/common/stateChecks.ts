/**
 * Checks of the state a run or a conversation carries into its next run (continue-as-new, a
 * replay, a migration): messages, handoff and approval records, counters and controls, with the
 * team snapshot among them. A state that does not pass fails the run at once rather than later.
 *
 * Each check of an object is built with `shapeOf<T>()` from the type baton writes, so a field added
 * to a carried type without its check (or a check left for a field gone) does not compile: what one
 * run writes, the next run reads back.
 *
 * Workflow-safe: no I/O.
 */
import { approvalQuestionsCheck } from './approvalQuestions';
import { rejectionReasonsProblems } from './approvalReasons';
import type { ApprovalRecord, PendingApproval, PolicyProgress, StageState } from './approvals';
import { approvalVoteCheck, decisionIdentity } from './approvalVoteChecks';
import { approvalTimingCheck } from './approvalTiming';
import {
  arrayOf,
  boolean,
  type Check,
  count,
  either,
  integer,
  isoTime,
  isRecord,
  names,
  nonEmptyString,
  nullable,
  number,
  object,
  oneOf,
  recordOf,
  shapeOf,
  shown,
  string,
} from './check';
import type { ConversationReply, ConversationState, CurrentTurn, QueuedMessage, RememberedReply } from './conversation';
import type { Breaker, BudgetExceeded, ControlState, ToolCallUnderApproval } from './controls';
import { callTokensCheck, economicsStateCheck, usageCheck } from './economics/checks';
import {
  CONVERSATION_OPTION_KEYS,
  conversationOptionProblems,
  type ResolvedConversationOptions,
} from './conversationOptions';
import type { HandoffResult } from './handoff';
import type { ChatMessage, ModelResponse, ToolCall } from './model';
import { RUN_OPTION_KEYS, runOptionProblems, type ResolvedRunOptions } from './options';
import type { HandoffRecord, ParentLink } from './run';
import type { ChainState, MigrationFallback, MigrationRequest, OpenTools, OpenTurn, ReplayOrigin } from './state';
import type { SharedState, StateUpdate } from './team';
import type { TurnStranding } from './stranded';
import { teamSpecCheck } from './teamChecks';

const anything: Check = () => [];
/** A figure a budget counts: tokens, turns, milliseconds or micros. */
const amount = number(0, Number.MAX_SAFE_INTEGER);
const list: Check<unknown[]> = (v, key) => (Array.isArray(v) ? [] : [`"${key}" must be a list, got ${shown(v)}`]);

const sharedState = shapeOf<SharedState>()({ context: object, artifacts: list, workflowState: object });

const stateUpdate = shapeOf<StateUpdate>()({ context: object, artifacts: list, workflowState: object }, [
  'context',
  'artifacts',
  'workflowState',
]);

const toolCall = shapeOf<ToolCall>()({ id: string, name: string, arguments: string });

type Message<R extends ChatMessage['role']> = Extract<ChatMessage, { role: R }>;
const byRole = {
  system: shapeOf<Message<'system'>>()({ role: oneOf(['system']), content: string }),
  user: shapeOf<Message<'user'>>()({ role: oneOf(['user']), content: string }),
  assistant: shapeOf<Message<'assistant'>>()(
    { role: oneOf(['assistant']), content: nullable(string), toolCalls: arrayOf(toolCall, 'tool calls') },
    ['toolCalls'],
  ),
  tool: shapeOf<Message<'tool'>>()({ role: oneOf(['tool']), toolCallId: string, content: string }),
} satisfies { [R in ChatMessage['role']]: Check<Message<R>> };

const chatMessage: Check<ChatMessage> = (v, key) => {
  if (!isRecord(v)) return [`"${key}" must be a chat message, got ${shown(v)}`];
  const check = typeof v.role === 'string' ? byRole[v.role as ChatMessage['role']] : undefined;
  return check
    ? check(v, key)
    : [`"${key}.role" must be "system", "user", "assistant" or "tool", got ${shown(v.role)}`];
};
const chatMessages = arrayOf(chatMessage, 'chat messages');

const approvalRecord = shapeOf<ApprovalRecord>()(
  {
    handoffId: nonEmptyString,
    // A decided record is never `voted` (only an update's answer to one vote is).
    outcome: oneOf(['approved', 'rejected', 'timed_out']) as Check<ApprovalRecord['outcome']>,
    approver: string,
    comment: string,
    reason: string,
    reasonLabel: string,
    questions: approvalQuestionsCheck,
    requestedAt: isoTime,
    decidedAt: isoTime,
    via: oneOf(['signal', 'update', 'timeout']),
    onTimeout: oneOf(['reject', 'approve', 'fail']),
    timeout: either(string, count),
    tool: string,
    editedArguments: string,
    argumentsDigest: string,
    identity: decisionIdentity,
    signature: string,
    escalationStep: count,
    votes: arrayOf(approvalVoteCheck, 'votes'),
    onBehalfOf: nonEmptyString,
  },
  [
    'approver',
    'comment',
    'reason',
    'reasonLabel',
    'questions',
    'onTimeout',
    'timeout',
    'tool',
    'editedArguments',
    'argumentsDigest',
    'identity',
    'signature',
    'escalationStep',
    'votes',
    'onBehalfOf',
  ],
);

const toolCallUnderApproval = shapeOf<ToolCallUnderApproval>()({
  name: nonEmptyString,
  arguments: string,
  toolCallId: string,
  callHash: nonEmptyString,
});

/** Problems with an approval a specialist reports waiting, or a carried state holds. */
export const pendingApprovalCheck: Check<PendingApproval> = shapeOf<PendingApproval>()(
  {
    handoffId: nonEmptyString,
    from: nonEmptyString,
    to: nonEmptyString,
    message: string,
    requestedAt: isoTime,
    expiresAt: isoTime,
    approvers: names,
    timeout: either(string, count),
    onTimeout: oneOf(['reject', 'approve', 'fail']),
    workflowId: string,
    tool: toolCallUnderApproval,
    requireSignature: boolean,
    dueAt: isoTime,
    policy: approvalTimingCheck,
    progress: shapeOf<PolicyProgress>()({ reminders: count, steps: count, overdue: boolean }),
    stages: arrayOf(shapeOf<StageState>()({ approvers: names, needed: count }), 'stages'),
    stage: count,
    votes: arrayOf(approvalVoteCheck, 'votes'),
    rejectionReasons: (v, at) => rejectionReasonsProblems(v, at),
    questions: approvalQuestionsCheck,
  },
  [
    'expiresAt',
    'approvers',
    'timeout',
    'workflowId',
    'tool',
    'requireSignature',
    'dueAt',
    'policy',
    'progress',
    'stages',
    'stage',
    'votes',
    'rejectionReasons',
    'questions',
  ],
);

const handoffRecord = shapeOf<HandoffRecord>()(
  {
    from: nonEmptyString,
    to: nonEmptyString,
    message: string,
    timestamp: isoTime,
    turn: count,
    approval: approvalRecord,
    input: anything,
    update: stateUpdate,
  },
  ['approval', 'input', 'update'],
);

/** A typed answer checked by the model activity: the value, or what is wrong with it. */
const checkedValue: Check<{ value: unknown } | { error: string }> = (v, key) =>
  isRecord(v) && Object.keys(v).length === 1 && ('value' in v || typeof v.error === 'string')
    ? []
    : [`"${key}" must be {value} or {error: string}, got ${shown(v)}`];

const modelResponse = shapeOf<ModelResponse>()(
  {
    content: nullable(string),
    toolCalls: arrayOf(toolCall, 'tool calls'),
    usage: callTokensCheck,
    model: string,
    output: checkedValue,
    handoffInputs: arrayOf(nullable(checkedValue), 'checked handoff inputs'),
  },
  ['output', 'handoffInputs'],
);

const handoffResult = shapeOf<HandoffResult>()(
  {
    kind: oneOf(['handoff']),
    from: nonEmptyString,
    to: nonEmptyString,
    message: string,
    input: anything,
    update: stateUpdate,
    via: oneOf(['specialist']),
  },
  ['input', 'update', 'via'],
);

const answerPair: Check<[string, string]> = (v, key) =>
  Array.isArray(v) && v.length === 2 && v.every((x) => typeof x === 'string')
    ? []
    : [`"${key}" must be [callId, result]`];

const openTurn = shapeOf<OpenTurn>()({
  calls: arrayOf(toolCall, 'tool calls'),
  results: arrayOf(answerPair, 'pairs'),
  handoffCallId: string,
  handoff: handoffResult,
  handoffId: nonEmptyString,
});

const resolvedOptions: Check<ResolvedRunOptions> = (v, key) => {
  const problems = runOptionProblems(v, key);
  if (problems.length > 0 || !isRecord(v)) return problems;
  // Options carried from runs of older versions may lack options added since; defaults fill them.
  const required = [
    'maxHandoffs',
    'maxTurns',
    'onInvalidHandoff',
    'maxInvalidHandoffRetries',
    'modelTimeout',
    'toolTimeout',
    'retry',
    'approvals',
    'continueAsNewAfterEvents',
  ];
  return required
    .filter((k) => v[k] === undefined)
    .map((k) => `"${key}.${k}" is missing (resolved options have ${RUN_OPTION_KEYS.join(', ')})`);
};

/** Problems with the link of a specialist chain to the chain it works for. */
export const parentLinkCheck: Check<ParentLink> = shapeOf<ParentLink>()(
  {
    workflowId: nonEmptyString,
    rootWorkflowId: nonEmptyString,
    depth: integer(1, 100),
    token: nonEmptyString,
    team: shapeOf<NonNullable<ParentLink['team']>>()({ id: nonEmptyString, hash: nonEmptyString }),
    turn: integer(0, Number.MAX_SAFE_INTEGER),
    message: nonEmptyString,
  },
  ['token', 'team', 'turn', 'message'],
);

const budgetExceeded = shapeOf<BudgetExceeded>()(
  {
    budget: oneOf(['handoffs', 'turns', 'tokens', 'agents', 'deadline', 'cost']),
    limit: amount,
    used: amount,
    currency: string,
    needed: amount,
    scope: oneOf(['conversation']),
    agent: string,
  },
  ['currency', 'needed', 'scope'],
);

const breaker = shapeOf<Breaker>()(
  { state: oneOf(['closed', 'open', 'half_open']), failures: count, openedAt: count },
  ['openedAt'],
);

const controlState = shapeOf<ControlState>()(
  {
    counters: recordOf(count),
    breakers: recordOf(breaker),
    startedAt: count,
    progressAtHandoff: arrayOf(count, 'counts'),
    progress: count,
    loopRefusals: count,
    finalTurn: budgetExceeded,
    usageByAgent: recordOf(usageCheck),
    guardrailFeedback: recordOf(count),
  },
  ['finalTurn', 'guardrailFeedback'],
);

const migrationFallback = shapeOf<MigrationFallback>()({
  agentId: nonEmptyString,
  messages: chatMessages,
  answers: arrayOf(shapeOf<MigrationFallback['answers'][number]>()({ toolCallId: string, content: string }), 'answers'),
  handoffCallId: string,
  to: nonEmptyString,
});

type Approvals = ChainState['approvals'];
type DecidedCall = NonNullable<ChainState['decidedCalls']>[string];

const chainStateShape = shapeOf<ChainState>()(
  {
    team: teamSpecCheck,
    options: resolvedOptions,
    agentId: nonEmptyString,
    messages: chatMessages,
    chain: arrayOf(handoffRecord, 'handoff records'),
    usage: usageCheck,
    turns: count,
    activationTurns: count,
    invalidHandoffs: count,
    callCounts: recordOf(count),
    answerRetries: recordOf(count),
    context: object,
    request: string,
    shared: sharedState,
    parent: parentLinkCheck,
    openTurn,
    openTools: shapeOf<OpenTools>()({ response: modelResponse, asked: recordOf(nonEmptyString) }),
    pendingResponse: modelResponse,
    approvals: shapeOf<Approvals>()(
      {
        pending: arrayOf(pendingApprovalCheck, 'waiting approvals'),
        decided: arrayOf(approvalRecord, 'approval records'),
        toolCalls: recordOf(string),
      },
      ['toolCalls'],
    ),
    continuedRuns: count,
    replayOf: shapeOf<ReplayOrigin>()({ workflowId: string, runId: string, from: string }),
    migrate: shapeOf<MigrationRequest>()({ from: nonEmptyString, fallback: migrationFallback }, ['fallback']),
    decidedCalls: recordOf(shapeOf<DecidedCall>()({ callHash: string, record: approvalRecord })),
    controls: controlState,
    economics: economicsStateCheck,
    routingCounts: recordOf(count),
    operatorSignCounts: recordOf(count),
    operatorSignedAt: recordOf(count),
  },
  [
    'answerRetries',
    'context',
    'request',
    'shared',
    'parent',
    'openTurn',
    'openTools',
    'pendingResponse',
    'replayOf',
    'controls',
    'migrate',
    'decidedCalls',
    'economics',
    'routingCounts',
    'operatorSignCounts',
    'operatorSignedAt',
  ],
);

/** Problems with a carried chain state, the references between its parts included. */
export const chainStateCheck: Check<ChainState> = (v, key) => {
  const problems = chainStateShape(v, key);
  if (problems.length > 0 || !isRecord(v)) return problems;
  const agents = (v.team as { agents: Record<string, unknown> }).agents;
  if (!Object.hasOwn(agents, String(v.agentId)))
    problems.push(`"${key}.agentId" ${shown(v.agentId)} is not in the team (${Object.keys(agents).join(', ')})`);
  return problems;
};

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
    before: shapeOf<CurrentTurn['before']>()({ agentId: nonEmptyString, messages: chatMessages, shared: sharedState }, [
      'shared',
    ]),
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
    handoffs: arrayOf(handoffRecord, 'handoff records'),
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
