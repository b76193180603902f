/**
 * A message sent to baton's A2A agent, taken: a new chain, a conversation's turn (a message in a
 * context), or the caller's decision on a task that waits (a message to a task); where to follow
 * what it started from.
 */
import type { Message, Task } from '@a2a-js/sdk';
import { RequestMalformedError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { Permission, requirePermission, type Identity, type TokenChecked } from '../auth';
import type { ServiceContext } from '../context';
import { decideAs } from '../decisions';
import { existingRun } from '../runKeys';
import { startAs } from '../runs';
import type { A2ATeam } from './card';
import { decisionOf } from './decision';
import { afterApproval } from './follow';
import { chainIdFor, isInterrupted, isTerminal } from './tasks';
import { parseTurn, sendTurn, turnTaskId } from './turns';

/** Task `workflowId` (a chain, or a conversation's turn) as `identity` may see it. */
export type ReadTask = (workflowId: string, identity: Identity) => Promise<Task>;

/** The task a message started or answered, and where to follow it from. */
export interface Taken {
  workflowId: string;
  after?: string;
}

/** Start a chain or a conversation's turn with `message` as `caller`, or decide what the task it names waits for. */
export async function takeMessage(
  ctx: ServiceContext,
  team: A2ATeam,
  message: Message,
  caller: TokenChecked,
  read: ReadTask,
): Promise<Taken> {
  if (message.taskId) return reply(ctx, message, caller, read);
  const input = textOf(message);
  if (input === '') throw new RequestMalformedError('the message has no text: send the request as a text part');
  const agent = typeof message.metadata?.agent === 'string' ? message.metadata.agent : team.entry;
  if (!agent)
    throw new RequestMalformedError('name the agent to start with in the message\'s metadata: {"agent": "…"}');
  if (ctx.agents && !ctx.agents.includes(agent))
    throw new RequestMalformedError(
      `no agent ${JSON.stringify(agent)}: metadata.agent must be one of ${ctx.agents.join(', ')}`,
    );
  // A task a baton chain delegates here is a chain of its own in the caller's context; any other message in a context is the conversation's.
  const delegated = typeof (message.metadata?.baton as { from?: unknown } | undefined)?.from === 'string';
  if (message.contextId && !delegated) {
    requirePermission(caller.identity, Permission.START);
    return { workflowId: turnTaskId(await sendTurn(ctx, caller.identity, message, input, agent)) };
  }
  const key = message.messageId ? { identity: caller.identity.name, messageId: message.messageId } : undefined;
  const workflowId = chainIdFor(message.contextId || undefined, agent, key);
  try {
    return await startAs(ctx, caller.identity, { agent, input }, workflowId);
  } catch (err) {
    // The message was sent before (the same sender, the same messageId): its task, unless it asked for something else.
    if (!key || !(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    if (!(await existingRun(ctx.baton.client, workflowId, { agent, input }, 'messageId'))) throw err;
    return { workflowId };
  }
}

/** The caller's answer to a task that waits: a decision, refused unless the caller may decide. */
async function reply(ctx: ServiceContext, message: Message, caller: TokenChecked, read: ReadTask): Promise<Taken> {
  const task = await read(message.taskId, caller.identity);
  if (isTerminal(task.status?.state))
    throw new UnsupportedOperationError(
      `task ${message.taskId} has ended (${task.metadata?.baton?.status}); send a message without a taskId to start a new chain`,
    );
  const turn = parseTurn(message.taskId);
  // A chain's task shows the chain's own approvals; one waiting in a specialist it delegated to is
  // decided through the chain too, so the chain is asked what waits before the reply is refused. (A
  // turn's task is read from its conversation, specialists' approvals included.)
  if (!isInterrupted(task.status?.state) && (turn || !(await waitsInChain(ctx, message.taskId))))
    throw new UnsupportedOperationError(
      `task ${message.taskId} is working and waits for no input; follow it with SubscribeToTask`,
    );
  const decision = decisionOf(message);
  if (turn) {
    await decideAs(ctx, caller, turn.conversationId, decision);
    return { workflowId: message.taskId };
  }
  const cursor = await ctx.baton.streams.last(message.taskId).catch(() => undefined);
  const record = await decideAs(ctx, caller, message.taskId, decision);
  return {
    workflowId: message.taskId,
    ...(await afterApproval(ctx, message.taskId, record.handoffId, cursor).then((after) => (after ? { after } : {}))),
  };
}

/** The message's text parts, joined. */
export function textOf(message: Message): string {
  return message.parts
    .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
    .filter((t) => t !== '')
    .join('\n')
    .trim();
}

/** Whether anything waits for a decision in the chain `workflowId`, as the chain answers; no answer is `false`. */
async function waitsInChain(ctx: ServiceContext, workflowId: string): Promise<boolean> {
  const pending = await ctx.baton
    .getRun(workflowId)
    .pendingApprovals()
    .catch(() => []);
  return pending.length > 0;
}
