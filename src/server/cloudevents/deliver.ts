/**
 * What an event's rule does: start a chain under an id derived from the event, or send the event
 * to a conversation as a message keyed by the event — either way once per event, however often a
 * bus delivers it. Each answer tells a bus what to do: 2xx delivered (again: 200, nothing new), 503
 * with `Retry-After` deliver it again later (a busy conversation, a worker away), 4xx never mind.
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { Context } from 'hono';
import { type EventRule, eventInput, MissingEventValueError, type RuledEvent, valueAt } from '../../agents/eventRules';
import type { ConversationReply } from '../../common/conversation';
import { ConversationBusyError, ConversationEndedError } from '../../common/conversationErrors';
import { BatonError, InputTooLargeError, InvalidRunInputError } from '../../common/errors';
import { WorkflowType } from '../../common/messages';
import type { ServiceContext } from '../context';
import { kindOf, notA } from '../kinds';
import { lookupMessage } from '../messageKeys';
import { fieldError, HttpProblem, sendProblem, toProblem } from '../problems';
import { startAs } from '../runs';

/** Start the chain `rule` names, under `workflowId`: 202 the first time, 200 with the same chain after. */
export async function startChain(
  c: Context,
  ctx: ServiceContext,
  rule: EventRule & { start: string },
  event: RuledEvent,
  workflowId: string,
): Promise<Response> {
  const input = inputOf(rule, event);
  try {
    await startAs(
      ctx,
      { name: `event:${event.source}`.slice(0, 200), roles: ['starter'] },
      { agent: rule.start, input, ...(rule.options ? { options: rule.options } : {}) },
      workflowId,
    );
    return c.json({ workflowId, created: true }, 202);
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return c.json({ workflowId, created: false }, 200);
    throw err;
  }
}

/**
 * Send the event to its conversation as the message with idempotency key `key` (starting the
 * conversation at the rule's agent when there is none): 202 once the conversation took it, 200 when
 * it has it already (waiting, being answered or answered), 503 with `Retry-After` when it refused it
 * as busy (the `reject` mid-turn policy) or did not take it in time.
 */
export async function sendToConversation(
  c: Context,
  ctx: ServiceContext,
  rule: EventRule & { message: NonNullable<EventRule['message']> },
  event: RuledEvent,
  key: string,
): Promise<Response> {
  const conversation = conversationIdOf(rule, event);
  const text = inputOf(rule, event);
  const kind = await deadline(ctx, () => kindOf(ctx, conversation));
  if (kind !== undefined && kind !== WorkflowType.CONVERSATION) throw notA('conversation', conversation, kind);
  if (kind === undefined && rule.message.agent === undefined) {
    throw new HttpProblem(
      422,
      'No such conversation',
      `there is no conversation ${conversation}, and the rule for events of type "${event.type}" names no agent to start one (message.agent)`,
    );
  }
  const known =
    kind === undefined
      ? undefined
      : await deadline(ctx, () => lookupMessage(ctx, conversation, { idempotencyKey: key }));
  if (known && known !== 'unknown' && known.message)
    return c.json(answer(conversation, key, false, known.message.status), 200);
  await ctx.payloadLimit.check('The message', {
    start: { agent: rule.message.agent ?? '' },
    message: { message: text, idempotencyKey: key },
  });
  // The agent starts the conversation only when there is none; an existing one answers with its active agent.
  const agent = rule.message.agent ?? ctx.agents?.[0] ?? 'agent';
  let taken!: () => void;
  const accepted = new Promise<'taken'>((resolve) => (taken = () => resolve('taken')));
  const reply = ctx.baton
    .conversation(agent, { id: conversation, ...(rule.options ? { options: rule.options } : {}) })
    .send(text, { idempotencyKey: key, ...(rule.message.midTurn ? { midTurn: rule.message.midTurn } : {}), taken });
  const settled = reply.then(
    (r) => ({ reply: r }),
    (error: unknown) => ({ error }),
  );
  const first = await Promise.race([
    settled,
    accepted,
    delay(ctx.temporalTimeoutMs + 5_000).then(() => 'late' as const),
  ]);
  if (first === 'late')
    return retryLater(
      c,
      `conversation ${conversation} did not take the event's message in time (its worker may be busy or away); deliver the event again`,
    );
  // A message refused as it arrives (the `reject` policy) is taken and refused in one workflow task.
  const outcome =
    first === 'taken' ? await Promise.race([settled, delay(REFUSAL_WAIT_MS).then(() => 'waiting' as const)]) : first;
  if (outcome === 'waiting') return c.json(answer(conversation, key, true, 'taken'), 202);
  if ('reply' in outcome)
    return c.json(
      { ...answer(conversation, key, true, 'answered'), reply: outcome.reply as ConversationReply<unknown> },
      200,
    );
  const err = outcome.error;
  if (err instanceof ConversationBusyError)
    return retryLater(
      c,
      `conversation ${conversation} is answering another message and refuses messages meanwhile (its midTurn policy is reject); deliver the event again`,
    );
  if (err instanceof ConversationEndedError) throw new HttpProblem(409, 'Conversation ended', err.message);
  if (err instanceof InvalidRunInputError)
    throw new HttpProblem(
      400,
      'Invalid message',
      'The event makes a message that is not valid.',
      err.problems.map(fieldError),
    );
  if (err instanceof InputTooLargeError) throw toProblem(err);
  // The turn ran and failed: the message was delivered, and answered with the typed error.
  if (err instanceof BatonError)
    return c.json(
      { ...answer(conversation, key, true, 'failed'), error: { type: err.name, message: err.message } },
      200,
    );
  throw err;
}

function answer(conversation: string, idempotencyKey: string, created: boolean, status: string) {
  return {
    conversation,
    idempotencyKey,
    created,
    status,
    follow: `/v1/conversations/${encodeURIComponent(conversation)}/messages/${encodeURIComponent(idempotencyKey)}`,
  };
}

function retryLater(c: Context, detail: string): Response {
  c.header('retry-after', '5');
  return sendProblem(c, new HttpProblem(503, 'Busy', detail));
}

/** The conversation id the event holds where the rule says. */
function conversationIdOf(rule: EventRule & { message: NonNullable<EventRule['message']> }, event: RuledEvent): string {
  const at = rule.message.conversation;
  const value = valueAt(event, at);
  const id = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  if (typeof id !== 'string' || id.trim() === '' || id.length > 1000) {
    throw new HttpProblem(
      422,
      'No conversation id',
      `the rule for events of type "${event.type}" reads the conversation's id at ${at}, and the event has ${value === undefined ? 'nothing there' : `${JSON.stringify(value).slice(0, 100)} there`} (a non-empty string or a number, at most 1000 characters)`,
    );
  }
  return id;
}

function inputOf(rule: EventRule, event: RuledEvent): string {
  try {
    return eventInput(rule, event);
  } catch (err) {
    if (err instanceof MissingEventValueError)
      throw new HttpProblem(
        422,
        'Missing event value',
        `the rule for events of type "${event.type}" makes its input from ${err.paths.join(', ')}, which the event lacks`,
      );
    throw err;
  }
}

function deadline<T>(ctx: ServiceContext, call: () => Promise<T>): Promise<T> {
  return ctx.baton.client.connection.withDeadline(Date.now() + ctx.temporalTimeoutMs, call);
}

/** How long a taken message is watched for a refusal before the answer says it was taken. */
const REFUSAL_WAIT_MS = 2_000;
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref?.());
