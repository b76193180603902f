/** The official `@a2a-js/sdk` client as the A2A tests call the service with it: the requests they send and readers of what it answers. */
import { randomUUID } from 'node:crypto';
import { Role, type Artifact, type Message, type StreamResponse, type Task, type TaskState } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { expect } from 'vitest';

/** The official client, calling the service with `token`. */
export async function a2aClient(url: string, token: string): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) =>
    fetch(input, {
      ...init,
      headers: { ...Object.fromEntries(new Headers(init?.headers).entries()), authorization: `Bearer ${token}` },
    });
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
    }),
  );
  return factory.createFromUrl(url);
}

/** A user's text message, with a new `messageId`; `extra` names its task or context. */
export function userMessage(text: string, extra: Partial<Message> = {}): Message {
  return {
    messageId: randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
    ...extra,
  };
}

/** The request that sends `message`. */
export function send(message: Message) {
  return { tenant: '', message, configuration: undefined, metadata: undefined };
}

/** The request that replies `text` to the task `taskId`: an approver's decision, or a turn's next message. */
export function reply(taskId: string, text: string) {
  return send(userMessage(text, { taskId }));
}

/** The request that sends `message` and asks for the task back at once, before the chain has answered. */
export function sendAtOnce(message: Message) {
  return {
    ...send(message),
    configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true },
  };
}

/** The request that registers a push notification receiver at `url` for the task `taskId`. */
export function pushConfig(taskId: string, url: string, token: string) {
  return { tenant: '', id: '', taskId, url, token, authentication: undefined };
}

/** The answer as a task; fails when it is a message. */
export function asTask(result: Message | Task): Task {
  expect('status' in result).toBe(true);
  return result as Task;
}

/** The text of the task's artifact `artifactId`. */
export function textOf(task: Task, artifactId = 'answer'): string | undefined {
  const part = task.artifacts.find((a) => a.artifactId === artifactId)?.parts[0]?.content;
  return part?.$case === 'text' ? part.value : undefined;
}

/** The state of the task `id` as `client` reads it now. */
export async function taskState(client: Client, id: string): Promise<TaskState | undefined> {
  return (await client.getTask({ tenant: '', id })).status?.state;
}

/** The task state a status update of a stream reports. */
export function stateOf(response: StreamResponse): TaskState {
  return (response.payload!.value as { status: { state: TaskState } }).status.state;
}

/** Every item of a stream, once it has ended. */
export async function collect(stream: AsyncGenerator<StreamResponse>): Promise<StreamResponse[]> {
  const all: StreamResponse[] = [];
  for await (const item of stream) all.push(item);
  return all;
}

/** The text of each artifact the streams sent, put together from its updates (appended or replaced), by artifact id. */
export function streamedTexts(responses: StreamResponse[]): Map<string, string> {
  const texts = new Map<string, string>();
  for (const s of responses) {
    if (s.payload?.$case !== 'artifactUpdate') continue;
    const { artifact, append } = s.payload.value;
    const piece = artifact!.parts[0]!.content as { value: string };
    texts.set(artifact!.artifactId, append ? (texts.get(artifact!.artifactId) ?? '') + piece.value : piece.value);
  }
  return texts;
}

/** The artifacts a stream carried: in artifact updates, and in a task it sent. */
export function artifactsOf(responses: StreamResponse[]): Artifact[] {
  return responses.flatMap((s) =>
    s.payload?.$case === 'artifactUpdate'
      ? [s.payload.value.artifact!]
      : s.payload?.$case === 'task'
        ? s.payload.value.artifacts
        : [],
  );
}
