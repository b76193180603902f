/**
 * Complete validation of everything the `handoffRun` and `conversation` workflows accept from
 * outside: their input (including a carried state, checked in `stateChecks.ts`), overrides,
 * decisions and messages. A run started with bad JSON fails at once with
 * {@link InvalidRunInputError}; it never spins.
 *
 * Workflow-safe: no I/O.
 */
import type { HandoffDecision } from './approvals';
import { isUnreadable } from './arrival';
import {
  type Check,
  fieldNames,
  isRecord,
  nonEmptyString,
  object,
  oneOf,
  recordOf,
  shape,
  shown,
  string,
} from './check';
import type { ConversationInput } from './conversation';
import { InputTooLargeError, InvalidRunInputError } from './errors';
import { LIMITS, type SizeProblem } from './limits';
import { conversationOptionProblems } from './conversationOptions';
import { runOptionProblems } from './options';
import type { HandoffRunInput } from './run';
import { conversationInputSizes, runInputSizes } from './sizes';
import { chainStateCheck, parentLinkCheck } from './stateChecks';
import { conversationStateCheck } from './conversationStateChecks';
import { modelSpecCheck } from './modelSpecChecks';

const INPUT_FIELDS = ['agent', 'input', 'options', 'context', 'parent', 'resume'];

/** The most a run's application context may hold, as JSON: it travels with every tool call. */
export const MAX_CONTEXT_BYTES = LIMITS.contextBytes;

/** Problems with a run's application context. */
export function contextProblems(value: unknown): string[] {
  if (!isRecord(value)) return [`"context" must be a JSON object, got ${shown(value)}`];
  const bytes = new TextEncoder().encode(JSON.stringify(value)).length;
  return bytes > MAX_CONTEXT_BYTES
    ? [
        `"context" is ${bytes} bytes of JSON; at most ${MAX_CONTEXT_BYTES} (give tools large or secret things when the worker builds them)`,
      ]
    : [];
}

/**
 * What is wrong with a carried state, said as what it is: baton wrote `resume` when the chain or
 * conversation continued (continue-as-new, a replay, a migration), so the problem is a field this
 * worker's baton does not understand, not something a caller should leave out.
 */
function carriedStateProblems(problems: string[], what: 'chain' | 'conversation'): string[] {
  const how = `the ${what} state baton wrote in "resume" when the ${what} continued (continue-as-new, a replay or a migration)`;
  return problems.map(
    (p) =>
      `${how} is not understood by this worker's baton: ${p}. Run workers of a baton version that reads it, then \`baton replay <workflowId>\` continues the ${what}`,
  );
}

/** Which checks a validation makes: `sizes` holds fields to {@link LIMITS} first. */
export interface ValidationOptions {
  /** @default true */
  sizes?: boolean;
}

function refuseSizes(problems: SizeProblem[]): void {
  if (problems.length > 0) throw new InputTooLargeError(problems);
}

/** A start whose payload could not be read (not JSON, another encoding): refused, saying what a start is. */
function refuseUnreadable(value: unknown, valid: string): void {
  if (!isUnreadable(value)) return;
  if (value.size) throw new InputTooLargeError([value.size]);
  throw new InvalidRunInputError([`${value.problem('the start input')}; start it with a JSON object ${valid}`]);
}

/**
 * Check a `handoffRun` input; throws {@link InputTooLargeError} for fields over their limits (then
 * nothing else is checked), else {@link InvalidRunInputError} naming every problem.
 */
export function validateRunInput(value: unknown, options: ValidationOptions = {}): HandoffRunInput {
  refuseUnreadable(value, '{"agent": string, "input": string, "options"?: object}');
  if (options.sizes !== false) refuseSizes(runInputSizes(value));
  if (!isRecord(value)) {
    throw new InvalidRunInputError([
      `input must be an object {"agent": string, "input": string, "options"?: object}, got ${shown(value)}`,
    ]);
  }
  const problems: string[] = [];
  if (typeof value.agent !== 'string' || value.agent.length === 0)
    problems.push(`"agent" must be a non-empty string, got ${shown(value.agent)}`);
  if (typeof value.input !== 'string') problems.push(`"input" must be a string, got ${shown(value.input)}`);
  else if (value.input.trim() === '') problems.push('"input" must not be empty: it is what the first agent is asked');
  if (value.options !== undefined) problems.push(...runOptionProblems(value.options));
  if (value.context !== undefined) problems.push(...contextProblems(value.context));
  if (value.parent !== undefined) problems.push(...parentLinkCheck(value.parent, 'parent'));
  if (value.resume !== undefined)
    problems.push(...carriedStateProblems(chainStateCheck(value.resume, 'resume'), 'chain'));
  const extra = Object.keys(value).filter((k) => !INPUT_FIELDS.includes(k));
  if (extra.length > 0) problems.push(`unknown field(s) ${fieldNames(extra)} (valid: agent, input, options, context)`);
  if (problems.length > 0) throw new InvalidRunInputError(problems);
  return value as unknown as HandoffRunInput;
}

/** Problems with overrides `{options?, models?}`; `agents` are the team's ids, when known. */
export function overrideProblems(value: unknown, agents?: readonly string[], signed = true): string[] {
  const fields = signed ? ['options', 'models', 'operator', 'signature'] : ['options', 'models'];
  const problems = shape(
    {
      options: object,
      models: recordOf(modelSpecCheck),
      ...(signed ? { operator: nonEmptyString, signature: nonEmptyString } : {}),
    },
    fields,
  )(value, 'overrides');
  if (!isRecord(value)) return problems;
  if (signed && (value.operator === undefined) !== (value.signature === undefined))
    problems.push(
      '"overrides.operator" and "overrides.signature" go together: an operator\'s override names who signed it and carries the signature',
    );
  if (value.options !== undefined) problems.push(...runOptionProblems(value.options, 'overrides.options'));
  if (agents && isRecord(value.models)) {
    for (const id of Object.keys(value.models)) {
      if (!agents.includes(id))
        problems.push(`"overrides.models.${id}": "${id}" is not in the team (${agents.join(', ')})`);
    }
  }
  return problems;
}

const argumentsObject: Check = (v, key) =>
  isRecord(v) ? [] : [`"${key}" must be an object of the tool's arguments, got ${shown(v)}`];

const decisionShape = shape(
  {
    handoffId: nonEmptyString,
    approver: nonEmptyString,
    decision: oneOf(['approve', 'reject']),
    comment: string,
    reason: string,
    arguments: argumentsObject,
    callHash: nonEmptyString,
    signature: nonEmptyString,
    onBehalfOf: nonEmptyString,
    delegation: nonEmptyString,
  },
  ['comment', 'reason', 'arguments', 'callHash', 'signature', 'onBehalfOf', 'delegation'],
);

/** Problems with a decision on a waiting handoff, before looking at what waits. */
export function decisionProblems(value: unknown): string[] {
  return decisionShape(value, 'decision');
}

/** A decision as the workflow stores it: a valid one, or the problems that refuse it. */
export function readDecision(value: unknown): { decision: HandoffDecision } | { problems: string[] } {
  const problems = decisionProblems(value);
  return problems.length > 0 ? { problems } : { decision: value as HandoffDecision };
}

const CONVERSATION_INPUT_FIELDS = ['agent', 'options', 'conversation', 'context', 'resume'];

/** Check a `conversation` input; throws {@link InputTooLargeError} for fields over their limits, else {@link InvalidRunInputError} naming every problem. */
export function validateConversationInput(value: unknown, options: ValidationOptions = {}): ConversationInput {
  refuseUnreadable(value, '{"agent": string, "options"?: object, "conversation"?: object}');
  if (options.sizes !== false) refuseSizes(conversationInputSizes(value));
  if (!isRecord(value))
    throw new InvalidRunInputError([
      `input must be an object {"agent": string, "options"?: object, "conversation"?: object}, got ${shown(value)}`,
    ]);
  const problems: string[] = [];
  if (typeof value.agent !== 'string' || value.agent.trim() === '')
    problems.push(`"agent" must be a non-empty string, got ${shown(value.agent)}`);
  if (value.options !== undefined) problems.push(...runOptionProblems(value.options));
  if (value.conversation !== undefined) problems.push(...conversationOptionProblems(value.conversation));
  if (value.context !== undefined) problems.push(...contextProblems(value.context));
  if (value.resume !== undefined)
    problems.push(...carriedStateProblems(conversationStateCheck(value.resume, 'resume'), 'conversation'));
  const extra = Object.keys(value).filter((k) => !CONVERSATION_INPUT_FIELDS.includes(k));
  const message = extra.includes('input')
    ? '; messages, the first one too, are sent as sendMessage updates (with the start, by update-with-start)'
    : '';
  if (extra.length > 0)
    problems.push(`unknown field(s) ${fieldNames(extra)} (valid: agent, options, conversation, context)${message}`);
  if (problems.length > 0) throw new InvalidRunInputError(problems);
  return value as unknown as ConversationInput;
}

/** The longest idempotency key a message may carry. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = LIMITS.idempotencyKeyChars;

/** Problems with a `sendMessage` input: a message that is not empty, and an optional key (their sizes: `messageSizes`). */
export function sendMessageProblems(value: unknown): string[] {
  if (!isRecord(value))
    return [`a message must be an object {"message": string, "idempotencyKey"?: string}, got ${shown(value)}`];
  const problems = shape(
    {
      message: nonEmptyString,
      idempotencyKey: nonEmptyString,
      midTurn: oneOf(['enqueue', 'reject', 'interrupt', 'rollback']),
    },
    ['idempotencyKey', 'midTurn'],
  )(value, 'sendMessage');
  // `#<turn>` is how a message sent without a key is remembered; a caller's key of that form would get another message's reply.
  if (typeof value.idempotencyKey === 'string' && /^#\d+$/.test(value.idempotencyKey))
    problems.push(
      `"sendMessage.idempotencyKey" ${shown(value.idempotencyKey)} is how baton names a message sent without a key; choose another`,
    );
  return problems;
}
