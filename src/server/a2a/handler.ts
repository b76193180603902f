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
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import { WorkflowNotFoundError } from '@temporalio/client';
import { displayText } from '../../common/display';
import { Permission, requirePermission, type Identity } from '../auth';
import type { ServiceContext } from '../context';
import { HttpProblem } from '../problems';
import { runView } from '../runView';
import type { A2ATeam } from './card';
import { callerOf, guarded } from './callContext';
import { followChain } from './follow';
import { PushNotifications } from './push';
import { takeMessage } from './send';
import { isTerminal, taskOf } from './tasks';
import { followTurn, parseTurn, turnTask, type TurnId } from './turns';

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
    return takeMessage(this.ctx, this.team, message, callerOf(context), (id, identity) => this.read(id, identity));
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
