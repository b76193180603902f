/**
 * Checks of the state a chain carries into its next run (continue-as-new, a replay, a migration):
 * handoff records, the open turn, counters and controls, with the team snapshot among them. A state
 * that does not pass fails the run at once rather than later. The chat messages it holds are checked
 * in messageChecks.ts, its approvals in approvalStateChecks.ts, and a conversation's state, which
 * holds a chain's, in conversationStateChecks.ts.
 *
 * Each check of an object is built with `shapeOf<T>()` from the type baton writes, so a field added
 * to a carried type without its check (or a check left for a field gone) does not compile: what one
 * run writes, the next run reads back.
 *
 * Workflow-safe: no I/O.
 */
import { approvalRecordCheck, pendingApprovalCheck } from './approvalStateChecks';
import {
  anything,
  arrayOf,
  type Check,
  count,
  integer,
  isoTime,
  isRecord,
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
import type { Breaker, BudgetExceeded, ControlState } from './controls';
import { callTokensCheck, economicsStateCheck, usageCheck } from './economics/checks';
import type { HandoffResult } from './handoff';
import { chatMessagesCheck, toolCallCheck } from './messageChecks';
import type { ModelResponse } from './model';
import { RUN_OPTION_KEYS, runOptionProblems, type ResolvedRunOptions } from './options';
import type { HandoffRecord, ParentLink } from './run';
import type { ChainState, MigrationFallback, MigrationRequest, OpenTools, OpenTurn, ReplayOrigin } from './state';
import type { SharedState, StateUpdate } from './team';
import { teamSpecCheck } from './teamChecks';

/** A figure a budget counts: tokens, turns, milliseconds or micros. */
const amount = number(0, Number.MAX_SAFE_INTEGER);
const list: Check<unknown[]> = (v, key) => (Array.isArray(v) ? [] : [`"${key}" must be a list, got ${shown(v)}`]);

/** Problems with the state a team's agents share: its context, artifacts and workflow state. */
export const sharedStateCheck: Check<SharedState> = shapeOf<SharedState>()({
  context: object,
  artifacts: list,
  workflowState: object,
});

const stateUpdate = shapeOf<StateUpdate>()({ context: object, artifacts: list, workflowState: object }, [
  'context',
  'artifacts',
  'workflowState',
]);

/** Problems with the record of one handoff in a chain, its approval and state update included. */
export const handoffRecordCheck: Check<HandoffRecord> = shapeOf<HandoffRecord>()(
  {
    from: nonEmptyString,
    to: nonEmptyString,
    message: string,
    timestamp: isoTime,
    turn: count,
    approval: approvalRecordCheck,
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
    toolCalls: arrayOf(toolCallCheck, 'tool calls'),
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
  calls: arrayOf(toolCallCheck, 'tool calls'),
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
  messages: chatMessagesCheck,
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
    messages: chatMessagesCheck,
    chain: arrayOf(handoffRecordCheck, 'handoff records'),
    usage: usageCheck,
    turns: count,
    activationTurns: count,
    invalidHandoffs: count,
    callCounts: recordOf(count),
    answerRetries: recordOf(count),
    context: object,
    request: string,
    shared: sharedStateCheck,
    parent: parentLinkCheck,
    openTurn,
    openTools: shapeOf<OpenTools>()({ response: modelResponse, asked: recordOf(nonEmptyString) }),
    pendingResponse: modelResponse,
    approvals: shapeOf<Approvals>()(
      {
        pending: arrayOf(pendingApprovalCheck, 'waiting approvals'),
        decided: arrayOf(approvalRecordCheck, 'approval records'),
        toolCalls: recordOf(string),
      },
      ['toolCalls'],
    ),
    continuedRuns: count,
    replayOf: shapeOf<ReplayOrigin>()({ workflowId: string, runId: string, from: string }),
    migrate: shapeOf<MigrationRequest>()({ from: nonEmptyString, fallback: migrationFallback }, ['fallback']),
    decidedCalls: recordOf(
      shapeOf<DecidedCall>()({ callHash: string, record: approvalRecordCheck, to: string }, ['to']),
    ),
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
