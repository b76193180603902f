/**
 * Complete validation of everything the `handoffRun` workflow accepts from outside: its input
 * (including a carried chain state), model specs, overrides and decisions. A run started with
 * bad JSON fails at once with {@link InvalidRunInputError}; it never spins.
 *
 * Workflow-safe: no I/O.
 */
import type { HandoffDecision } from './approvals';
import {
  arrayOf,
  boolean,
  type Check,
  either,
  fieldNames,
  integer,
  isRecord,
  names,
  nonEmptyString,
  nullable,
  number,
  oneOf,
  recordOf,
  shape,
  shown,
  string,
} from './check';
import { InputTooLargeError, InvalidRunInputError } from './errors';
import { LIMITS, type SizeProblem } from './limits';
import { conversationInputSizes, runInputSizes } from './sizes';
import { approvalPolicyCheck, approvalRuleCheck, RUN_OPTION_KEYS, runOptionProblems } from './options';
import { CONVERSATION_OPTION_KEYS, conversationOptionProblems } from './options';
import { callTokensCheck, economicsSpecCheck, economicsStateCheck, usageCheck } from './economics/checks';
import type { ConversationInput } from './conversation';
import type { HandoffRunInput } from './run';
import { toolSensitivityCheck } from './sensitive';
import { approverKeysCheck } from './signatures/keys';

const count = integer(0, Number.MAX_SAFE_INTEGER);

const object: Check = (v, key) => (isRecord(v) ? [] : [`"${key}" must be an object, got ${shown(v)}`]);

const scriptedStep: Check = shape(
  {
    text: string,
    toolCalls: arrayOf(shape({ name: nonEmptyString, arguments: object }), 'tool calls {name, arguments}'),
    handoff: shape({ to: nonEmptyString, message: string }),
    failAttempts: integer(0, 100),
    delayMs: integer(0, 3_600_000),
    usage: shape({ inputTokens: integer(0, Number.MAX_SAFE_INTEGER), outputTokens: integer(0, Number.MAX_SAFE_INTEGER) }),
  },
  ['text', 'toolCalls', 'handoff', 'failAttempts', 'delayMs', 'usage'],
);

const openaiSpec = shape(
  {
    provider: oneOf(['openai']),
    model: nonEmptyString,
    settings: shape(
      { temperature: number(0, 2), maxTokens: integer(1), baseURL: nonEmptyString, timeoutMs: integer(1, 3_600_000), stream: boolean },
      ['temperature', 'maxTokens', 'baseURL', 'timeoutMs', 'stream'],
    ),
  },
  ['settings'],
);

const scriptedSpec = shape({
  provider: oneOf(['scripted']),
  model: nonEmptyString,
  steps: arrayOf(scriptedStep, 'scripted steps'),
  rules: arrayOf(shape({ whenIncludes: string, reply: scriptedStep }), 'scripted rules {whenIncludes, reply}'),
  requireAllSteps: boolean,
});

const customSpec = shape({ provider: nonEmptyString, model: nonEmptyString, settings: object }, ['settings']);

/** Names a worker can register providers under. */
export const PROVIDER_NAME = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;

/**
 * Problems with a model spec: `openai(...)`, `scripted(...)`, or `model(provider, name)` for a
 * provider the worker registers (which providers a worker has is checked when it starts).
 */
export const modelSpecCheck: Check = (v, key) => {
  if (!isRecord(v)) return [`"${key}" must be a model spec: openai(...), scripted(...) or model(provider, name), got ${shown(v)}`];
  if (v.provider === 'openai') return openaiSpec(v, key);
  if (v.provider === 'scripted') {
    const problems = scriptedSpec(v, key);
    (Array.isArray(v.steps) ? v.steps : []).forEach((step, i) => {
      if (isRecord(step) && step.text === undefined && step.toolCalls === undefined && step.handoff === undefined) {
        problems.push(`"${key}.steps[${i}]" needs text, toolCalls or handoff`);
      }
    });
    return problems;
  }
  if (typeof v.provider === 'string' && PROVIDER_NAME.test(v.provider)) return customSpec(v, key);
  return [`"${key}.provider" must name a model provider ("openai", "scripted", or one the worker registers), got ${shown(v.provider)}`];
};

const toolSpec = shape({ name: nonEmptyString, description: string, parameters: object });

const handoffRule = shape(
  { afterTools: names, whileTokensBelow: integer(0, Number.MAX_SAFE_INTEGER), whileHandoffsBelow: integer(0), whenContext: object },
  ['afterTools', 'whileTokensBelow', 'whileHandoffsBelow', 'whenContext'],
);

const handoffOptionsSpec = shape(
  {
    toolName: nonEmptyString,
    description: string,
    reason: string,
    context: oneOf(['message', 'full', 'last_user_message']),
    transferSystemMessage: boolean,
    filter: shape({ dropToolCalls: boolean, lastMessages: integer(1), summarize: either(boolean, shape({ instructions: string }, ['instructions'])) }, ['dropToolCalls', 'lastMessages', 'summarize']),
    input: nonEmptyString,
    inputSchema: object,
    isEnabled: handoffRule,
    onHandoff: boolean,
  },
  ['toolName', 'description', 'reason', 'context', 'transferSystemMessage', 'filter', 'input', 'inputSchema', 'isEnabled', 'onHandoff'],
);

const agentSpec = shape(
  {
    id: nonEmptyString,
    name: string,
    description: string,
    instructions: string,
    model: modelSpecCheck,
    tools: arrayOf(toolSpec, 'tool specs'),
    handoffs: names,
    handoffTool: toolSpec,
    handoffTools: arrayOf(toolSpec, 'tool specs'),
    handoffToolTargets: recordOf(nonEmptyString),
    handoffOptions: recordOf(handoffOptionsSpec),
    delegates: names,
    delegateOptions: recordOf(
      shape(
        { description: string, reason: string, maxTurns: integer(1), maxHandoffs: integer(0), timeout: either(string, count), onFailure: oneOf(['report', 'fail']), maxCost: number(0, 1e9) },
        ['description', 'reason', 'maxTurns', 'maxHandoffs', 'timeout', 'onFailure', 'maxCost'],
      ),
    ),
    delegateTool: toolSpec,
    profile: shape({ specialization: nonEmptyString, capabilities: names, description: string, examples: arrayOf(string, 'examples'), acceptsHandoffs: boolean }, ['description', 'examples', 'acceptsHandoffs']),
    routing: oneOf(['transfer', 'delegate']),
    outputSchema: object,
    approval: approvalPolicyCheck,
    guardrails: shape({ input: arrayOf(object, 'guardrails'), output: arrayOf(object, 'guardrails') }, ['input', 'output']),
    toolApprovals: recordOf(object),
    modelActivity: oneOf(['remote', 'local']),
    toolSensitivity: recordOf(toolSensitivityCheck),
  },
  ['handoffTool', 'handoffTools', 'handoffToolTargets', 'handoffOptions', 'delegates', 'delegateOptions', 'delegateTool', 'profile', 'routing', 'outputSchema', 'approval', 'guardrails', 'toolApprovals', 'modelActivity', 'toolSensitivity'],
);

const teamVersion = shape({ id: nonEmptyString, name: nonEmptyString, label: nonEmptyString, hash: nonEmptyString, parts: recordOf(string) }, ['label']);

const teamSpec = shape(
  {
    agents: recordOf(agentSpec),
    approvals: arrayOf(approvalRuleCheck, 'approval rules'),
    hasHandoffListeners: boolean,
    sharedState: boolean,
    version: teamVersion,
    teamAttribute: boolean,
    approverKeys: approverKeysCheck,
    runApproverKeys: boolean,
    payloadLimit: integer(1, Number.MAX_SAFE_INTEGER),
    economics: economicsSpecCheck,
  },
  ['sharedState', 'version', 'teamAttribute', 'approverKeys', 'runApproverKeys', 'payloadLimit', 'economics'],
);

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

const isoTime: Check = (v, key) => (typeof v === 'string' && !Number.isNaN(Date.parse(v)) ? [] : [`"${key}" must be an ISO 8601 time, got ${shown(v)}`]);

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

const parentLink = shape(
  { workflowId: nonEmptyString, rootWorkflowId: nonEmptyString, depth: integer(1, 100), token: nonEmptyString, team: shape({ id: nonEmptyString, hash: nonEmptyString }), turn: integer(0, Number.MAX_SAFE_INTEGER), message: nonEmptyString },
  ['token', 'team', 'turn', 'message'],
);

const chainStateShape = shape(
  {
    team: teamSpec,
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
    parent: parentLink,
    openTurn,
    pendingResponse: modelResponse,
    approvals: shape({ pending: arrayOf(pendingApprovalCheck, 'waiting approvals'), decided: arrayOf(approvalRecord, 'approval records') }),
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
  ['answerRetries', 'context', 'request', 'shared', 'parent', 'openTurn', 'pendingResponse', 'replayOf', 'controls', 'migrate', 'decidedCalls', 'economics'],
);

/** Problems with a carried chain state, the references between its parts included. */
export const chainStateCheck: Check = (v, key) => {
  const problems = chainStateShape(v, key);
  if (problems.length > 0 || !isRecord(v)) return problems;
  const agents = (v.team as { agents: Record<string, unknown> }).agents;
  if (!(String(v.agentId) in agents)) problems.push(`"${key}.agentId" ${shown(v.agentId)} is not in the team (${Object.keys(agents).join(', ')})`);
  return problems;
};

const INPUT_FIELDS = ['agent', 'input', 'options', 'context', 'parent', 'resume'];

/** The most a run's application context may hold, as JSON: it travels with every tool call. */
export const MAX_CONTEXT_BYTES = LIMITS.contextBytes;

/** Problems with a run's application context. */
export function contextProblems(value: unknown): string[] {
  if (!isRecord(value)) return [`"context" must be a JSON object, got ${shown(value)}`];
  const bytes = new TextEncoder().encode(JSON.stringify(value)).length;
  return bytes > MAX_CONTEXT_BYTES ? [`"context" is ${bytes} bytes of JSON; at most ${MAX_CONTEXT_BYTES} (give tools large or secret things when the worker builds them)`] : [];
}

/** Which checks a validation makes: `sizes` holds fields to {@link LIMITS} first. */
export interface ValidationOptions {
  /** @default true */
  sizes?: boolean;
}

function refuseSizes(problems: SizeProblem[]): void {
  if (problems.length > 0) throw new InputTooLargeError(problems);
}

/**
 * Check a `handoffRun` input; throws {@link InputTooLargeError} for fields over their limits (then
 * nothing else is checked), else {@link InvalidRunInputError} naming every problem.
 */
export function validateRunInput(value: unknown, options: ValidationOptions = {}): HandoffRunInput {
  if (options.sizes !== false) refuseSizes(runInputSizes(value));
  if (!isRecord(value)) {
    throw new InvalidRunInputError([`input must be an object {"agent": string, "input": string, "options"?: object}, got ${shown(value)}`]);
  }
  const problems: string[] = [];
  if (typeof value.agent !== 'string' || value.agent.length === 0) problems.push(`"agent" must be a non-empty string, got ${shown(value.agent)}`);
  if (typeof value.input !== 'string') problems.push(`"input" must be a string, got ${shown(value.input)}`);
  else if (value.input.trim() === '') problems.push('"input" must not be empty: it is what the first agent is asked');
  if (value.options !== undefined) problems.push(...runOptionProblems(value.options));
  if (value.context !== undefined) problems.push(...contextProblems(value.context));
  if (value.parent !== undefined) problems.push(...parentLink(value.parent, 'parent'));
  if (value.resume !== undefined) problems.push(...chainStateCheck(value.resume, 'resume').map((p) => `${p} ("resume" is set by baton when a chain continues; leave it out)`));
  const extra = Object.keys(value).filter((k) => !INPUT_FIELDS.includes(k));
  if (extra.length > 0) problems.push(`unknown field(s) ${fieldNames(extra)} (valid: agent, input, options, context)`);
  if (problems.length > 0) throw new InvalidRunInputError(problems);
  return value as unknown as HandoffRunInput;
}

/** Problems with overrides `{options?, models?}`; `agents` are the team's ids, when known. */
export function overrideProblems(value: unknown, agents?: readonly string[]): string[] {
  const problems = shape({ options: object, models: recordOf(modelSpecCheck) }, ['options', 'models'])(value, 'overrides');
  if (!isRecord(value)) return problems;
  if (value.options !== undefined) problems.push(...runOptionProblems(value.options, 'overrides.options'));
  if (agents && isRecord(value.models)) {
    for (const id of Object.keys(value.models)) {
      if (!agents.includes(id)) problems.push(`"overrides.models.${id}": "${id}" is not in the team (${agents.join(', ')})`);
    }
  }
  return problems;
}

const argumentsObject: Check = (v, key) => (isRecord(v) ? [] : [`"${key}" must be an object of the tool's arguments, got ${shown(v)}`]);

/** Problems with a decision on a waiting handoff, before looking at what waits. */
export function decisionProblems(value: unknown): string[] {
  return shape(
    { handoffId: nonEmptyString, approver: nonEmptyString, decision: oneOf(['approve', 'reject']), comment: string, reason: string, arguments: argumentsObject, callHash: nonEmptyString, signature: nonEmptyString },
    ['comment', 'reason', 'arguments', 'callHash', 'signature'],
  )(value, 'decision');
}

/** A decision as the workflow stores it: a valid one, or the problems that refuse it. */
export function readDecision(value: unknown): { decision: HandoffDecision } | { problems: string[] } {
  const problems = decisionProblems(value);
  return problems.length > 0 ? { problems } : { decision: value as HandoffDecision };
}

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

const CONVERSATION_INPUT_FIELDS = ['agent', 'options', 'conversation', 'context', 'resume'];

/** Check a `conversation` input; throws {@link InputTooLargeError} for fields over their limits, else {@link InvalidRunInputError} naming every problem. */
export function validateConversationInput(value: unknown, options: ValidationOptions = {}): ConversationInput {
  if (options.sizes !== false) refuseSizes(conversationInputSizes(value));
  if (!isRecord(value)) throw new InvalidRunInputError([`input must be an object {"agent": string, "options"?: object, "conversation"?: object}, got ${shown(value)}`]);
  const problems: string[] = [];
  if (typeof value.agent !== 'string' || value.agent.trim() === '') problems.push(`"agent" must be a non-empty string, got ${shown(value.agent)}`);
  if (value.options !== undefined) problems.push(...runOptionProblems(value.options));
  if (value.conversation !== undefined) problems.push(...conversationOptionProblems(value.conversation));
  if (value.context !== undefined) problems.push(...contextProblems(value.context));
  if (value.resume !== undefined) problems.push(...conversationStateCheck(value.resume, 'resume').map((p) => `${p} ("resume" is set by baton when a conversation continues; leave it out)`));
  const extra = Object.keys(value).filter((k) => !CONVERSATION_INPUT_FIELDS.includes(k));
  const message = extra.includes('input') ? '; messages, the first one too, are sent as sendMessage updates (with the start, by update-with-start)' : '';
  if (extra.length > 0) problems.push(`unknown field(s) ${fieldNames(extra)} (valid: agent, options, conversation, context)${message}`);
  if (problems.length > 0) throw new InvalidRunInputError(problems);
  return value as unknown as ConversationInput;
}

/** The longest idempotency key a message may carry. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = LIMITS.idempotencyKeyChars;

/** Problems with a `sendMessage` input: a message that is not empty, and an optional key (their sizes: `messageSizes`). */
export function sendMessageProblems(value: unknown): string[] {
  if (!isRecord(value)) return [`a message must be an object {"message": string, "idempotencyKey"?: string}, got ${shown(value)}`];
  const problems = shape({ message: nonEmptyString, idempotencyKey: nonEmptyString, midTurn: oneOf(['enqueue', 'reject', 'interrupt', 'rollback']) }, ['idempotencyKey', 'midTurn'])(value, 'sendMessage');
  // `#<turn>` is how a message sent without a key is remembered; a caller's key of that form would get another message's reply.
  if (typeof value.idempotencyKey === 'string' && /^#\d+$/.test(value.idempotencyKey)) problems.push(`"sendMessage.idempotencyKey" ${shown(value.idempotencyKey)} is how baton names a message sent without a key; choose another`);
  return problems;
}
