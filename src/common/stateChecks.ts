/**
 * Checks of the state a run or a conversation carries into its next run (continue-as-new, a
 * replay, a migration): messages, handoff and approval records, counters and controls, with the
 * team snapshot among them. A state that does not pass fails the run at once rather than later.
 *
 * Workflow-safe: no I/O.
 */
import { arrayOf, boolean, type Check, count, either, integer, isoTime, isRecord, names, nonEmptyString, nullable, object, oneOf, recordOf, shape, shown, string } from './check';
import { callTokensCheck, economicsStateCheck, usageCheck } from './economics/checks';
import { CONVERSATION_OPTION_KEYS, conversationOptionProblems } from './conversationOptions';
import { RUN_OPTION_KEYS, runOptionProblems } from './options';
import { teamSpecCheck } from './teamChecks';

const sharedState = shape({ context: object, artifacts: (v, key) => (Array.isArray(v) ? [] : [`"${key}" must be a list`]), workflowState: object });

const toolCall = shape({ id: string, name: string, arguments: string });

const chatMessage: Check = (v, key) => {
  if (!isRecord(v)) return [`"${key}" must be a chat message, got ${shown(v)}`];
  switch (v.role) {
    case 'system':
    case 'user':
      return shape({ role: string, content: string })(v, key);
    case 'assistant':
      return shape({ role: string, content: nullable(string), toolCalls: arrayOf(toolCall, 'tool calls') }, ['toolCalls'])(v, key);
    case 'tool':
      return shape({ role: string, toolCallId: string, content: string })(v, key);
    default:
      return [`"${key}.role" must be "system", "user", "assistant" or "tool", got ${shown(v.role)}`];
  }
};

const approvalRecord = shape(
  {
    handoffId: nonEmptyString,
    outcome: oneOf(['approved', 'rejected', 'timed_out']),
    approver: string,
    comment: string,
    reason: string,
    requestedAt: isoTime,
    decidedAt: isoTime,
    via: oneOf(['signal', 'update', 'timeout']),
    onTimeout: oneOf(['reject', 'approve', 'fail']),
    timeout: either(string, count),
    tool: string,
    editedArguments: string,
    argumentsDigest: string,
    identity: shape({ method: oneOf(['signed', 'token', 'claimed']), kid: string, keySource: oneOf(['team', 'run']), issuer: string, subject: string }, ['kid', 'keySource', 'issuer', 'subject']),
    signature: string,
  },
  ['approver', 'comment', 'reason', 'onTimeout', 'timeout', 'tool', 'editedArguments', 'argumentsDigest', 'identity', 'signature'],
);

/** Problems with an approval a specialist reports waiting, or a carried state holds. */
export const pendingApprovalCheck: Check = shape(
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
    tool: shape({ name: nonEmptyString, arguments: string, toolCallId: string, callHash: nonEmptyString }),
    requireSignature: boolean,
  },
  ['expiresAt', 'approvers', 'timeout', 'workflowId', 'tool', 'requireSignature'],
);

const handoffRecord = shape(
  { from: nonEmptyString, to: nonEmptyString, message: string, timestamp: isoTime, turn: count, approval: approvalRecord, input: (_v: unknown) => [], update: object },
  ['approval', 'input', 'update'],
);

const usage = usageCheck;

const modelResponse = shape({ content: nullable(string), toolCalls: arrayOf(toolCall, 'tool calls'), usage: callTokensCheck, model: string });

const openTurn = shape({
  calls: arrayOf(toolCall, 'tool calls'),
  results: arrayOf((v, key) => (Array.isArray(v) && v.length === 2 && v.every((x) => typeof x === 'string') ? [] : [`"${key}" must be [callId, result]`]), 'pairs'),
  handoffCallId: string,
  handoff: shape({ kind: oneOf(['handoff']), from: nonEmptyString, to: nonEmptyString, message: string, input: (_v: unknown) => [], update: object }, ['input', 'update']),
  handoffId: nonEmptyString,
});

const resolvedOptions: Check = (v, key) => {
  const problems = runOptionProblems(v, key);
  if (problems.length > 0 || !isRecord(v)) return problems;
  // Options carried from runs of older versions may lack options added since; defaults fill them.
  const required = ['maxHandoffs', 'maxTurns', 'onInvalidHandoff', 'maxInvalidHandoffRetries', 'modelTimeout', 'toolTimeout', 'retry', 'approvals', 'continueAsNewAfterEvents'];
  return required.filter((k) => v[k] === undefined).map((k) => `"${key}.${k}" is missing (resolved options have ${RUN_OPTION_KEYS.join(', ')})`);
};

/** Problems with the link of a specialist chain to the chain it works for. */
export const parentLinkCheck: Check = shape(
  { workflowId: nonEmptyString, rootWorkflowId: nonEmptyString, depth: integer(1, 100), token: nonEmptyString, team: shape({ id: nonEmptyString, hash: nonEmptyString }), turn: integer(0, Number.MAX_SAFE_INTEGER), message: nonEmptyString },
  ['token', 'team', 'turn', 'message'],
);

const chainStateShape = shape(
  {
    team: teamSpecCheck,
    options: resolvedOptions,
    agentId: nonEmptyString,
    messages: arrayOf(chatMessage, 'chat messages'),
    chain: arrayOf(handoffRecord, 'handoff records'),
    usage,
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
    openTools: shape({ response: modelResponse, asked: recordOf(nonEmptyString) }),
    pendingResponse: modelResponse,
    approvals: shape({ pending: arrayOf(pendingApprovalCheck, 'waiting approvals'), decided: arrayOf(approvalRecord, 'approval records'), toolCalls: recordOf(string) }, ['toolCalls']),
    continuedRuns: count,
    replayOf: shape({ workflowId: string, runId: string, from: string }),
    migrate: shape(
      {
        from: nonEmptyString,
        fallback: shape({ agentId: nonEmptyString, messages: arrayOf(chatMessage, 'chat messages'), answers: arrayOf(shape({ toolCallId: string, content: string }), 'answers'), handoffCallId: string, to: nonEmptyString }),
      },
      ['fallback'],
    ),
    decidedCalls: recordOf(shape({ callHash: string, record: approvalRecord })),
    controls: shape(
      {
        counters: recordOf(count),
        breakers: recordOf(shape({ state: oneOf(['closed', 'open', 'half_open']), failures: count, openedAt: count }, ['openedAt'])),
        startedAt: count,
        progressAtHandoff: arrayOf(count, 'counts'),
        progress: count,
        loopRefusals: count,
        finalTurn: object,
        usageByAgent: recordOf(usage),
        guardrailFeedback: recordOf(count),
      },
      ['finalTurn', 'guardrailFeedback'],
    ),
    economics: economicsStateCheck,
  },
  ['answerRetries', 'context', 'request', 'shared', 'parent', 'openTurn', 'openTools', 'pendingResponse', 'replayOf', 'controls', 'migrate', 'decidedCalls', 'economics'],
);

/** Problems with a carried chain state, the references between its parts included. */
export const chainStateCheck: Check = (v, key) => {
  const problems = chainStateShape(v, key);
  if (problems.length > 0 || !isRecord(v)) return problems;
  const agents = (v.team as { agents: Record<string, unknown> }).agents;
  if (!Object.hasOwn(agents, String(v.agentId))) problems.push(`"${key}.agentId" ${shown(v.agentId)} is not in the team (${Object.keys(agents).join(', ')})`);
  return problems;
};

const queuedMessage = shape({ turn: integer(1, Number.MAX_SAFE_INTEGER), message: string, idempotencyKey: nonEmptyString, updateId: string }, ['updateId']);

const currentTurn: Check = (v, key) => {
  const problems = shape({ turn: count, message: string, idempotencyKey: nonEmptyString, updateId: string, startedAt: isoTime, before: object, merged: arrayOf(nonEmptyString, 'idempotency keys') }, ['updateId', 'merged'])(v, key);
  if (problems.length > 0 || !isRecord(v) || !isRecord(v.before)) return problems;
  return shape({ agentId: nonEmptyString, messages: arrayOf(chatMessage, 'chat messages'), shared: sharedState }, ['shared'])(v.before, `${key}.before`);
};

const rememberedReply = shape({ idempotencyKey: nonEmptyString, reply: object, failure: shape({ type: string, message: string, details: (_v: unknown) => [] }, ['details']) }, ['reply', 'failure']);

const resolvedConversationOptions: Check = (v, key) => {
  const problems = conversationOptionProblems(v, key);
  if (problems.length > 0 || !isRecord(v)) return problems;
  // `midTurn` and `maxCost` came later: a conversation carried from before them goes on with their defaults.
  return CONVERSATION_OPTION_KEYS.filter((k) => v[k] === undefined && k !== 'midTurn' && k !== 'maxCost').map((k) => `"${key}.${k}" is missing`);
};

/** Problems with a carried conversation, its chain's state included. */
export const conversationStateCheck: Check = shape(
  {
    chain: chainStateCheck,
    conversation: resolvedConversationOptions,
    turns: count,
    current: currentTurn,
    queued: arrayOf(queuedMessage, 'queued messages'),
    replies: arrayOf(rememberedReply, 'remembered replies'),
    usage,
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
