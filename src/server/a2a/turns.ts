/**
 * A2A contexts as baton conversations: a message that names a `contextId` is a message to the
 * conversation of that id (the first one starts it), and its task is the message's turn, named
 * `turn:<key>:<conversationId>` by the message's idempotency key. The turn's state is read from the
 * conversation (its `message` query and what waits in it), so any service instance answers for it.
 */
import { createHash, randomUUID } from 'node:crypto';
import { TaskState, type Message, type Task, type TaskStatus } from '@a2a-js/sdk';
import { RequestMalformedError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import type { PendingApproval } from '../../common/approvals';
import { WorkflowType } from '../../common/messages';
import { tenantPrefix } from '../../common/tenant';
import { redactPending } from '../../client/sensitive';
import { mayDecide, type Identity } from '../auth';
import type { ServiceContext } from '../context';
import { kindOf } from '../kinds';
import { isCallersTenant, tenantOf } from '../tenancy';
import { lookupMessage } from '../messageKeys';
import { agentMessage, answerArtifact, statusOf, textPart } from './tasks';

/** A conversation turn's task id. */
export interface TurnId {
  conversationId: string;
  key: string;
}

const TURN_ID = /^turn:(a2a-[0-9a-f]{32}):(.+)$/s;

/** How long a message may wait to be taken by its conversation before the call gives up (it is answered once when sent again). */
const TAKE_WAIT_MS = 30_000;

/** The task id of the turn of message `key` in `conversationId`. */
export function turnTaskId(turn: TurnId): string {
  return `turn:${turn.key}:${turn.conversationId}`;
}

/** The turn a task id names, when it names one. */
export function parseTurn(taskId: string): TurnId | undefined {
  const m = TURN_ID.exec(taskId);
  return m ? { key: m[1]!, conversationId: m[2]! } : undefined;
}

/**
 * The idempotency key of an A2A message to a conversation: derived from who sent it, the
 * conversation and its `messageId`, so a message sent again is answered once.
 */
export function turnKey(identity: string, conversationId: string, messageId: string | undefined): string {
  const seed = messageId ? JSON.stringify([identity, conversationId, messageId]) : randomUUID();
  return `a2a-${createHash('sha256').update(seed).digest('hex').slice(0, 32)}`;
}

/** Send `text` to conversation `conversationId` (starting it with `agent`); resolves with the turn once the conversation took it. */
export async function sendTurn(
  ctx: ServiceContext,
  identity: Identity,
  message: Message,
  text: string,
  agent: string,
): Promise<TurnId> {
  const conversationId = message.contextId;
  // Another tenant's conversation is one the caller cannot know of; a new one is the caller's tenant's, under an id that says so.
  if (!isCallersTenant(identity, await tenantOf(ctx, conversationId)))
    throw new TaskNotFoundError(`no conversation ${conversationId}`);
  if (identity.tenant !== undefined && !conversationId.startsWith(tenantPrefix(identity.tenant))) {
    throw new RequestMalformedError(
      `a conversation of tenant "${identity.tenant}" has a contextId that begins "${tenantPrefix(identity.tenant)}", got "${conversationId}"`,
    );
  }
  const kind = await kindOf(ctx, conversationId);
  if (kind !== undefined && kind !== WorkflowType.CONVERSATION) {
    throw new RequestMalformedError(
      `the context ${conversationId} is a ${kind} workflow, not a conversation: a contextId names a conversation; leave it out to start a chain of its own, or give a new conversation an id of its own`,
    );
  }
  await ctx.payloadLimit.check('The message', { message: text });
  const key = turnKey(identity.name, conversationId, message.messageId || undefined);
  let taken!: () => void;
  const accepted = new Promise<void>((resolve) => (taken = resolve));
  const reply = ctx.baton
    .conversation(agent, {
      id: conversationId,
      ...(identity.tenant !== undefined ? { options: { tenant: identity.tenant } } : {}),
    })
    .send(text, { idempotencyKey: key, taken });
  // The reply is read from the conversation, not from this call: a failure is the turn's, answered by GetTask.
  reply.catch((err: unknown) => ctx.log('a conversation message sent over A2A failed', err));
  const first = await Promise.race([
    accepted.then(() => 'taken' as const),
    reply.then(
      () => 'taken' as const,
      (err: unknown) => err,
    ),
    new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), TAKE_WAIT_MS).unref()),
  ]);
  if (first === 'late') throw notTaken(conversationId);
  // Taken, the message is in the conversation's inbox once its handler ran: its task is readable from then on.
  for (
    const until = Date.now() + TAKE_WAIT_MS;
    Date.now() < until;
    await new Promise((resolve) => setTimeout(resolve, 100).unref())
  ) {
    const found = await lookupMessage(ctx, conversationId, { idempotencyKey: key }).catch(() => undefined);
    if (found && found !== 'unknown' && found.message) return { conversationId, key };
    if (first !== 'taken') throw first;
  }
  throw notTaken(conversationId);
}

function notTaken(conversationId: string): Error {
  return new Error(
    `conversation ${conversationId} did not take the message in time; send it again with the same messageId (it is answered once)`,
  );
}

/** The task of a conversation turn, as `identity` may see it. */
export async function turnTask(ctx: ServiceContext, turn: TurnId, identity: Identity): Promise<Task> {
  const id = turnTaskId(turn);
  if (!isCallersTenant(identity, await tenantOf(ctx, turn.conversationId)))
    throw new TaskNotFoundError(`no task ${id}: there is no conversation ${turn.conversationId}`);
  const found = await lookupMessage(ctx, turn.conversationId, { idempotencyKey: turn.key });
  if (found === undefined)
    throw new TaskNotFoundError(`no task ${id}: there is no conversation ${turn.conversationId}`);
  if (found === 'unknown' && (await kindOf(ctx, turn.conversationId)) !== WorkflowType.CONVERSATION)
    throw new TaskNotFoundError(`no task ${id}: ${turn.conversationId} is not a conversation`);
  if (found === 'unknown')
    throw new Error(
      `conversation ${turn.conversationId} cannot be asked about its messages now (no worker answers it); try again shortly`,
    );
  const m = found.message;
  if (!m)
    throw new TaskNotFoundError(
      `no task ${id}: conversation ${turn.conversationId} remembers no such message (it keeps its last replies only)`,
    );
  const contextId = turn.conversationId;
  const task = (status: TaskStatus, extra: Partial<Task> = {}): Task => ({
    id,
    contextId,
    status,
    artifacts: [],
    history: [],
    metadata: {
      baton: { status: m.status, conversation: contextId, ...(m.turn !== undefined ? { turn: m.turn } : {}) },
    },
    ...extra,
  });
  const at = new Date().toISOString();
  if (m.status === 'answered')
    return task(
      { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: at },
      {
        artifacts: [answerArtifact(m.reply?.output)],
        metadata: { baton: { status: 'completed', conversation: contextId, agent: m.reply?.agent, turn: m.turn } },
      },
    );
  if (m.status === 'failed') {
    const failure = m.failure ? `${m.failure.type}: ${m.failure.message}` : 'failed';
    return task({
      state: TaskState.TASK_STATE_FAILED,
      message: agentMessage(id, contextId, [textPart(`The turn failed: ${failure}`)]),
      timestamp: at,
    });
  }
  if (m.status === 'queued') return task({ state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: at });
  const waiting = await ctx.baton.getRun(turn.conversationId).pendingApprovals();
  const seen = waiting.map((p) =>
    p.tool && !mayDecide(identity, p.approvers) ? redactPending(p) : p,
  ) as unknown as Record<string, unknown>[];
  const status = statusOf({
    workflowId: id,
    status: waiting.length > 0 ? 'awaiting_approval' : 'running',
    pendingApprovals: seen,
  });
  return task({ ...status, ...(status.message ? { message: { ...status.message, contextId } } : {}) });
}

/** The approvals waiting in a turn's conversation. */
export function turnPending(ctx: ServiceContext, turn: TurnId): Promise<PendingApproval[]> {
  return ctx.baton.getRun(turn.conversationId).pendingApprovals();
}

/** How often a followed turn is read. */
const READ_EVERY_MS = 300;

/**
 * A turn's status each time it changes, from `first` on, until it ends or (without `through`)
 * waits for a person. The answer comes as the `answer` artifact before the final status.
 */
export async function* followTurn(
  ctx: ServiceContext,
  turn: TurnId,
  identity: Identity,
  first: Task,
  signal: AbortSignal,
  through: boolean,
): AsyncGenerator<Task> {
  let seen = fingerprint(first);
  for (;;) {
    const state = first.status?.state;
    if (
      state === TaskState.TASK_STATE_COMPLETED ||
      state === TaskState.TASK_STATE_FAILED ||
      state === TaskState.TASK_STATE_CANCELED
    )
      return;
    if (!through && (state === TaskState.TASK_STATE_INPUT_REQUIRED || state === TaskState.TASK_STATE_AUTH_REQUIRED))
      return;
    await new Promise((resolve) => setTimeout(resolve, READ_EVERY_MS).unref());
    if (signal.aborted) return;
    first = await turnTask(ctx, turn, identity);
    const now = fingerprint(first);
    if (now === seen) continue;
    seen = now;
    yield first;
  }
}

/** What a turn's update says: its state and what it asks. */
function fingerprint(task: Task): string {
  const parts = task.status?.message?.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')) ?? [];
  return JSON.stringify([task.status?.state, parts]);
}
