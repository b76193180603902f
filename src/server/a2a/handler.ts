/**
 * The A2A request handler over baton: a message without a task or context starts a chain, a message
 * in a context is a message to the conversation of that id (its task is the message's turn), a
 * message to a task that waits is the caller's decision, and tasks are read, cancelled and followed
 * from Temporal — nothing but push notification webhooks is kept in the service, so any instance
 * answers for any task.
 */
import type {
  AgentCard,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  Message,
  SendMessageRequest,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import {
  A2AError,
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { displayText } from '../../common/display';
import { Permission, requirePermission, type Identity, type TokenChecked } from '../auth';
import type { ServiceContext } from '../context';
import { decideAs } from '../decisions';
import { HttpProblem, toProblem } from '../problems';
import { existingRun, runView, startAs } from '../runs';
import type { A2ATeam } from './card';
import { decisionOf } from './decision';
import { afterApproval, followChain } from './follow';
import { PushNotifications } from './push';
import { chainIdFor, isInterrupted, isTerminal, taskOf } from './tasks';
import { followTurn, parseTurn, sendTurn, turnTask, turnTaskId, type TurnId } from './turns';

/** Where the route leaves the caller, and where the handler leaves a refusal the route answers with its HTTP status. */
export const CALLER = 'baton.caller';
export const REFUSAL = 'baton.refusal';

/** How long a cancelled chain is waited for before its task is answered (still working, cancel requested). */
const CANCEL_WAIT_MS = 10_000;

/** baton's team as an A2A agent. */
export class BatonA2AHandler implements A2ARequestHandler {
  private readonly push: PushNotifications;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly team: A2ATeam,
    private readonly card: (context?: ServerCallContext) => AgentCard,
  ) {
    this.push = new PushNotifications((id, as) => this.read(id, as), ctx.log);
  }

  getAgentCard(): Promise<AgentCard> {
    return Promise.resolve(this.card());
  }

  getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    return Promise.resolve(this.card());
  }

  async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    return guarded(context, async () => {
      const { workflowId, after } = await this.take(params, context);
      if (params.configuration?.taskPushNotificationConfig)
        await this.createTaskPushNotificationConfig(
          { ...params.configuration.taskPushNotificationConfig, taskId: workflowId },
          context,
        );
      if (params.configuration?.returnImmediately) return this.task(workflowId, context);
      const abort = new AbortController();
      try {
        const turn = parseTurn(workflowId);
        if (turn) {
          let last = await this.task(workflowId, context);
          for await (const update of followTurn(this.ctx, turn, callerOf(context).identity, last, abort.signal, false))
            last = update;
          return last;
        }
        for await (const update of followChain(this.ctx, workflowId, after, abort.signal))
          if (update.kind === 'stop') break;
      } finally {
        abort.abort();
      }
      return this.task(workflowId, context);
    });
  }

  async *sendMessageStream(params: SendMessageRequest, context: ServerCallContext): AsyncGenerator<StreamResponse> {
    const { workflowId, after } = await guarded(context, () => this.take(params, context));
    yield* this.updates(workflowId, after, context, false);
  }

  async getTask(params: { id: string }, context: ServerCallContext): Promise<Task> {
    return guarded(context, async () => {
      requirePermission(callerOf(context).identity, Permission.READ);
      return this.task(params.id, context);
    });
  }

  async cancelTask(params: { id: string }, context: ServerCallContext): Promise<Task> {
    return guarded(context, async () => {
      requirePermission(callerOf(context).identity, Permission.START);
      const before = await this.task(params.id, context);
      const turn = parseTurn(params.id);
      if (turn)
        throw new TaskNotCancelableError(
          `task ${params.id} is a turn of conversation ${turn.conversationId}: a turn is not cancelled alone; end the conversation (POST /v1/conversations/{id}/end) or send the next message`,
        );
      if (isTerminal(before.status?.state))
        throw new TaskNotCancelableError(
          `task ${params.id} has ended (${before.metadata?.baton?.status}); only a working or waiting chain can be cancelled`,
        );
      const handle = this.ctx.baton.client.workflow.getHandle(params.id);
      await handle.cancel();
      // The chain records its cancellation as it stops (cancelled status, the audit's end).
      await Promise.race([
        handle.result().catch(() => undefined),
        new Promise((resolve) => setTimeout(resolve, CANCEL_WAIT_MS).unref()),
      ]);
      return this.task(params.id, context);
    });
  }

  async *resubscribe(params: { id: string }, context: ServerCallContext): AsyncGenerator<StreamResponse> {
    await guarded(context, async () => requirePermission(callerOf(context).identity, Permission.READ));
    yield* this.updates(params.id, undefined, context, true);
  }

  listTasks(): Promise<never> {
    return Promise.reject(
      new UnsupportedOperationError(
        'listing tasks is not served over A2A; the REST API lists what waits (GET /v1/approvals)',
      ),
    );
  }

  async createTaskPushNotificationConfig(
    params: TaskPushNotificationConfig,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    return guarded(context, async () => {
      const { identity } = callerOf(context);
      requirePermission(identity, Permission.READ);
      return this.push.create(params, identity);
    });
  }

  async getTaskPushNotificationConfig(
    params: GetTaskPushNotificationConfigRequest,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    return guarded(context, () => Promise.resolve(this.push.get(params.taskId, params.id, callerOf(context).identity)));
  }

  async listTaskPushNotificationConfigs(
    params: ListTaskPushNotificationConfigsRequest,
    context: ServerCallContext,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    return guarded(context, () =>
      Promise.resolve({ configs: this.push.list(params.taskId, callerOf(context).identity), nextPageToken: '' }),
    );
  }

  async deleteTaskPushNotificationConfig(
    params: DeleteTaskPushNotificationConfigRequest,
    context: ServerCallContext,
  ): Promise<void> {
    return guarded(context, () =>
      Promise.resolve(this.push.delete(params.taskId, params.id, callerOf(context).identity)),
    );
  }

  /**
   * The task as it is now, then its updates until it ends or waits (`through`: until it ends), then
   * its status again.
   */
  private async *updates(
    workflowId: string,
    after: string | undefined,
    context: ServerCallContext,
    through: boolean,
  ): AsyncGenerator<StreamResponse> {
    const first = await guarded(context, () => this.task(workflowId, context));
    yield { payload: { $case: 'task', value: first } };
    if (isTerminal(first.status?.state)) return;
    const turn = parseTurn(workflowId);
    if (turn) {
      yield* this.turnUpdates(turn, first, context, through);
      return;
    }
    const abort = new AbortController();
    try {
      for await (const update of followChain(
        this.ctx,
        workflowId,
        after,
        abort.signal,
        through ? callerOf(context).identity : undefined,
      )) {
        if (update.kind === 'artifact') yield { payload: { $case: 'artifactUpdate', value: update.data } };
        else if (update.kind === 'status') yield { payload: { $case: 'statusUpdate', value: update.data } };
        else break;
      }
    } finally {
      abort.abort();
    }
    const last = await this.task(workflowId, context);
    yield {
      payload: {
        $case: 'statusUpdate',
        value: { taskId: last.id, contextId: last.contextId, status: last.status, metadata: last.metadata },
      },
    };
  }

  /** A turn's status updates until it ends (or waits, without `through`), its answer as an artifact before the last. */
  private async *turnUpdates(
    turn: TurnId,
    first: Task,
    context: ServerCallContext,
    through: boolean,
  ): AsyncGenerator<StreamResponse> {
    const abort = new AbortController();
    try {
      for await (const task of followTurn(this.ctx, turn, callerOf(context).identity, first, abort.signal, through)) {
        for (const artifact of task.artifacts)
          yield {
            payload: {
              $case: 'artifactUpdate',
              value: {
                taskId: task.id,
                contextId: task.contextId,
                artifact,
                append: false,
                lastChunk: true,
                metadata: undefined,
              },
            },
          };
        yield {
          payload: {
            $case: 'statusUpdate',
            value: { taskId: task.id, contextId: task.contextId, status: task.status, metadata: task.metadata },
          },
        };
      }
    } finally {
      abort.abort();
    }
  }

  /** Start a chain or a conversation's turn, or decide what a task waits for; where to follow it from. */
  private async take(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): Promise<{ workflowId: string; after?: string }> {
    const message = params.message;
    if (!message)
      throw new RequestMalformedError(
        'the request has no message; send {"message": {"role": "ROLE_USER", "parts": [{"text": "…"}], …}}',
      );
    const caller = callerOf(context);
    if (message.taskId) return this.reply(message, caller, context);
    const input = textOf(message);
    if (input === '') throw new RequestMalformedError('the message has no text: send the request as a text part');
    const agent = typeof message.metadata?.agent === 'string' ? message.metadata.agent : this.team.entry;
    if (!agent)
      throw new RequestMalformedError('name the agent to start with in the message\'s metadata: {"agent": "…"}');
    if (this.ctx.agents && !this.ctx.agents.includes(agent))
      throw new RequestMalformedError(
        `no agent ${JSON.stringify(agent)}: metadata.agent must be one of ${this.ctx.agents.join(', ')}`,
      );
    // A task a baton chain delegates here is a chain of its own in the caller's context; any other message in a context is the conversation's.
    const delegated = typeof (message.metadata?.baton as { from?: unknown } | undefined)?.from === 'string';
    if (message.contextId && !delegated) {
      requirePermission(caller.identity, Permission.START);
      return { workflowId: turnTaskId(await sendTurn(this.ctx, caller.identity, message, input, agent)) };
    }
    const key = message.messageId ? { identity: caller.identity.name, messageId: message.messageId } : undefined;
    const workflowId = chainIdFor(message.contextId || undefined, agent, key);
    try {
      return await startAs(this.ctx, caller.identity, { agent, input }, workflowId);
    } catch (err) {
      // The message was sent before (the same sender, the same messageId): its task, unless it asked for something else.
      if (!key || !(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      if (!(await existingRun(this.ctx.baton.client, workflowId, { agent, input }, 'messageId'))) throw err;
      return { workflowId };
    }
  }

  /** The caller's answer to a task that waits: a decision, refused unless the caller may decide. */
  private async reply(
    message: Message,
    caller: TokenChecked,
    context: ServerCallContext,
  ): Promise<{ workflowId: string; after?: string }> {
    const task = await this.task(message.taskId, context);
    if (isTerminal(task.status?.state))
      throw new UnsupportedOperationError(
        `task ${message.taskId} has ended (${task.metadata?.baton?.status}); send a message without a taskId to start a new chain`,
      );
    if (!isInterrupted(task.status?.state))
      throw new UnsupportedOperationError(
        `task ${message.taskId} is working and waits for no input; follow it with SubscribeToTask`,
      );
    const decision = decisionOf(message);
    const turn = parseTurn(message.taskId);
    if (turn) {
      await decideAs(this.ctx, caller, turn.conversationId, decision);
      return { workflowId: message.taskId };
    }
    const cursor = await this.ctx.baton.streams.last(message.taskId).catch(() => undefined);
    const record = await decideAs(this.ctx, caller, message.taskId, decision);
    return {
      workflowId: message.taskId,
      ...(await afterApproval(this.ctx, message.taskId, record.handoffId, cursor).then((after) =>
        after ? { after } : {},
      )),
    };
  }

  private task(workflowId: string, context: ServerCallContext): Promise<Task> {
    return this.read(workflowId, callerOf(context).identity);
  }

  /** Task `workflowId` (a chain, or a conversation's turn) as `identity` may see it. */
  private async read(workflowId: string, identity: Identity): Promise<Task> {
    if (!workflowId?.trim())
      throw new RequestMalformedError('the task id is empty; give the id of a task this agent answered with');
    const turn = parseTurn(workflowId);
    if (turn) return turnTask(this.ctx, turn, identity);
    try {
      return taskOf(await runView(this.ctx, workflowId, identity));
    } catch (err) {
      if (
        err instanceof WorkflowNotFoundError ||
        (err instanceof HttpProblem && (err.status === 404 || err.status === 409))
      )
        throw new TaskNotFoundError(`no task ${displayText(workflowId)}`);
      throw err;
    }
  }
}

/** The caller the route authenticated. */
function callerOf(context: ServerCallContext): TokenChecked {
  const caller = context.state.get(CALLER) as TokenChecked | undefined;
  if (!caller) throw new Error('the A2A route authenticates every call before it reaches the handler');
  return caller;
}

/** The message's text parts, joined. */
export function textOf(message: Message): string {
  return message.parts
    .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
    .filter((t) => t !== '')
    .join('\n')
    .trim();
}

/**
 * Run `fn`; a refusal the service answers with an HTTP status (401, 403, 413, 429) is left for the
 * route, other problems become A2A errors naming what went wrong.
 */
async function guarded<T>(context: ServerCallContext, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof A2AError) throw err;
    const problem = toProblem(err);
    if ([401, 403, 413, 429].includes(problem.status)) {
      context.state.set(REFUSAL, problem);
      throw err;
    }
    if (problem.status === 404) throw new TaskNotFoundError(problem.message || problem.title);
    if (problem.status === 400 || problem.status === 409)
      throw new RequestMalformedError(
        [problem.message, ...(problem.errors ?? []).map((e) => `${e.path}: ${e.message}`)].filter(Boolean).join('; '),
      );
    throw err;
  }
}
