/**
 * The `callRemoteAgent` activity: a delegated task sent to a remote agent over A2A with the official
 * `@a2a-js/sdk` client, and its answer waited for by reading the task (`GetTask`) while heartbeating
 * the task's id. A call started again (a retry, a lost worker) reads the task its heartbeat named; without
 * one it sends the same message again (the id comes from the chain and the call), which the remote
 * takes as the same task (baton's A2A server does), so the task runs once and its answer is not lost.
 */
import { Role, TaskState, type Message, type Part, type Task } from '@a2a-js/sdk';
import { Context } from '@temporalio/activity';
import type { Team } from '../../src/agents/team';
import { RemoteAgentError, toApplicationFailure } from '../../src/common/errors';
import { clipText, LIMITS } from '../../src/common/limits';
import {
  REMOTE_ANSWER_CHARS,
  type RemoteCallInput,
  type RemoteCallProgress,
  type RemoteCallResult,
  type RemoteWaitState,
} from '../../src/common/remote';
import type { TeamNeed } from '../../src/common/version';
import { previousHeartbeat, whileHeartbeating } from '../heartbeat';
import { callFailure, remoteClient, type RemoteClient } from './client';

/** Pauses between reads of a task that works: short at first, then at most {@link MAX_PAUSE_MS}. */
const FIRST_PAUSE_MS = 200;
const MAX_PAUSE_MS = 2_000;

const TERMINAL = new Map<TaskState, string>([
  [TaskState.TASK_STATE_FAILED, 'failed'],
  [TaskState.TASK_STATE_REJECTED, 'rejected'],
  [TaskState.TASK_STATE_CANCELED, 'canceled'],
]);

const WAITS = new Map<TaskState, RemoteWaitState>([
  [TaskState.TASK_STATE_INPUT_REQUIRED, 'input-required'],
  [TaskState.TASK_STATE_AUTH_REQUIRED, 'auth-required'],
]);

/** The remote-agent activities of a worker whose team is `team`. */
export function remoteActivities(team: Team, refuseMismatch: (step: string, need: TeamNeed | undefined) => void) {
  return {
    /** Send a delegated task to a remote agent (once) and wait for its answer, or for the next wait there. */
    async callRemoteAgent(input: RemoteCallInput): Promise<RemoteCallResult> {
      refuseMismatch('callRemoteAgent', input.team);
      const remote = team.remotes.get(input.remote);
      if (!remote)
        throw toApplicationFailure(
          new RemoteAgentError({
            remote: input.remote,
            reason: `this worker's team has no remote agent "${input.remote}"`,
          }),
        );
      const ctx = Context.current();
      const connected = await remoteClient(remote).catch((err: unknown) =>
        Promise.reject(callFailure(input.remote, err, undefined)),
      );
      return whileHeartbeating(
        ctx,
        (heartbeat) => new RemoteCall(ctx, input, remote.spec.agent, connected, heartbeat).run(),
        input.lostWorker,
      );
    },
  };
}

/** One call: the task's id (from the input, the last heartbeat, or a message sent now), then its reads. */
class RemoteCall {
  private taskId: string | undefined;

  constructor(
    private readonly ctx: Context,
    private readonly input: RemoteCallInput,
    /** The agent the task starts with there, when the remote agent names one. */
    private readonly agent: string | undefined,
    private readonly remote: RemoteClient,
    private readonly heartbeat: (details?: unknown) => void,
  ) {
    this.taskId = input.taskId ?? progressOf(previousHeartbeat(ctx, input.lostWorker));
  }

  async run(): Promise<RemoteCallResult> {
    try {
      return await this.untilSettled();
    } catch (err) {
      if (this.ctx.cancellationSignal.aborted) await this.cancelTask();
      throw callFailure(this.input.remote, err, this.remote.lastStatus(), this.taskId);
    }
  }

  private async untilSettled(): Promise<RemoteCallResult> {
    const signal = this.ctx.cancellationSignal;
    if (this.taskId === undefined) {
      const sent = await this.remote.client.sendMessage(
        {
          tenant: '',
          message: this.message(),
          configuration: {
            acceptedOutputModes: ['text/plain', 'application/json'],
            taskPushNotificationConfig: undefined,
            returnImmediately: true,
          },
          metadata: undefined,
        },
        { signal },
      );
      // An agent may answer with a message and no task: that is its whole answer.
      if ('messageId' in sent) return { kind: 'completed', taskId: '', output: outputOf(sent.parts) };
      this.taskId = sent.id;
      this.heartbeat({ taskId: sent.id } satisfies RemoteCallProgress);
      const settled = this.settled(sent);
      if (settled) return settled;
    }
    for (let pause = FIRST_PAUSE_MS; ; pause = Math.min(pause * 2, MAX_PAUSE_MS)) {
      await this.ctx.sleep(pause);
      const task = await this.remote.client.getTask({ tenant: '', id: this.taskId, historyLength: 0 }, { signal });
      const settled = this.settled(task);
      if (settled) return settled;
    }
  }

  /** What the task's state means for the call: its answer, a failure, a wait to report, or nothing yet. */
  private settled(task: Task): RemoteCallResult | undefined {
    const state = task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED;
    if (state === TaskState.TASK_STATE_COMPLETED) return { kind: 'completed', taskId: task.id, output: answerOf(task) };
    const ended = TERMINAL.get(state);
    if (ended) {
      const said = clipText(textOf(task.status?.message?.parts ?? []), LIMITS.recordedReasonChars);
      throw toApplicationFailure(
        new RemoteAgentError({
          remote: this.input.remote,
          taskId: task.id,
          state: ended,
          reason: `the task ${ended}${said ? `: ${said}` : ''}`,
        }),
      );
    }
    const wait = WAITS.get(state);
    if (wait && wait !== this.input.waiting)
      return {
        kind: 'waiting',
        taskId: task.id,
        state: wait,
        message: clipText(textOf(task.status?.message?.parts ?? []), LIMITS.noteChars),
      };
    // A task the chain has on record as waiting that works again: the chain takes the wait off its record.
    if (!wait && this.input.waiting) return { kind: 'working', taskId: task.id };
    return undefined;
  }

  private message(): Message {
    const { input } = this;
    return {
      messageId: input.messageId,
      contextId: input.contextId,
      taskId: '',
      role: Role.ROLE_USER,
      parts: [
        { content: { $case: 'text', value: input.text }, metadata: undefined, filename: '', mediaType: 'text/plain' },
      ],
      metadata: { ...(this.agent ? { agent: this.agent } : {}), baton: { from: input.from } },
      extensions: [],
      referenceTaskIds: [],
    };
  }

  /** A cancelled call cancels its task there; a task that ended or cannot be cancelled stays as it is. */
  private async cancelTask(): Promise<void> {
    if (this.taskId === undefined) return;
    await this.remote.client.cancelTask({ tenant: '', id: this.taskId, metadata: undefined }).catch(() => undefined);
  }
}

function progressOf(details: unknown): string | undefined {
  const taskId = (details as Partial<RemoteCallProgress> | undefined)?.taskId;
  return typeof taskId === 'string' && taskId !== '' ? taskId : undefined;
}

/** The task's answer: its `answer` artifact (a baton team's), else every artifact's parts, else its status message. */
function answerOf(task: Task): unknown {
  const artifacts = task.artifacts ?? [];
  const answer =
    artifacts.find((a) => a.artifactId === 'answer') ?? (artifacts.length === 1 ? artifacts[0] : undefined);
  if (answer) return outputOf(answer.parts);
  if (artifacts.length > 0) return outputOf(artifacts.flatMap((a) => a.parts));
  return outputOf(task.status?.message?.parts ?? []);
}

/** Parts as an answer the chain keeps, within {@link REMOTE_ANSWER_CHARS}: their text, or the value of a lone data part. */
function outputOf(parts: Part[]): unknown {
  const data = parts.length === 1 && parts[0]!.content?.$case === 'data' ? parts[0]!.content.value : undefined;
  if (data !== undefined) {
    const json = jsonOf(data);
    return json !== undefined && json.length <= REMOTE_ANSWER_CHARS
      ? data
      : clipText(json ?? String(data), REMOTE_ANSWER_CHARS);
  }
  return clipText(textOf(parts), REMOTE_ANSWER_CHARS);
}

function textOf(parts: Part[]): string {
  return parts
    .map((p) =>
      p.content?.$case === 'text'
        ? p.content.value
        : p.content?.$case === 'data'
          ? (jsonOf(p.content.value) ?? '')
          : '',
    )
    .filter((t) => t !== '')
    .join('\n');
}

function jsonOf(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}
