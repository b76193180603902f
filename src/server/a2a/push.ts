/**
 * A2A push notifications: a client registers a webhook for a task and the service POSTs the task
 * (a v1.0 `StreamResponse` with the task) to it each time the task's state changes, until the task
 * ends. Every delivery is signed with the token the client registered:
 * `X-Baton-Signature: t=<unix seconds>,sha256=<hex HMAC-SHA256 of "<t>.<body>" keyed by the token>`,
 * so the receiver knows the service sent it, and when. The registrations live in this service's
 * memory: a restart forgets them (docs/protocols.md).
 */
import { createHmac, randomUUID } from 'node:crypto';
import type { Task, TaskPushNotificationConfig } from '@a2a-js/sdk';
import { RequestMalformedError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import { V1PushNotificationSerializer } from '@a2a-js/sdk/server';
import type { Identity } from '../auth';
import { isTerminal } from './tasks';

/** The header that carries a delivery's signature. */
export const PUSH_SIGNATURE_HEADER = 'x-baton-signature';

/** Webhooks one task may have, and tasks watched at once. */
const CONFIGS_PER_TASK = 10;
const TASKS_WATCHED = 1_000;
/** The shortest token a webhook may be registered with: it keys the signatures. */
const MIN_TOKEN_CHARS = 16;
const READ_EVERY_MS = 500;
const DELIVERY_ATTEMPTS = 3;
const DELIVERY_TIMEOUT_MS = 5_000;

/** How the watcher reads a task, as the identity that registered the webhook may see it. */
export type ReadTask = (taskId: string, as: Identity) => Promise<Task>;

interface Registration {
  config: TaskPushNotificationConfig;
  owner: Identity;
}

/** The webhooks of the service's tasks, and a watcher per task that has some. */
export class PushNotifications {
  private readonly byTask = new Map<string, Map<string, Registration>>();
  private readonly serializer = new V1PushNotificationSerializer();

  constructor(
    private readonly read: ReadTask,
    private readonly log: (message: string, error?: unknown) => void,
  ) {}

  /** Register `config` for its task (which `owner` may read); a watcher starts when the task had none. */
  async create(config: TaskPushNotificationConfig, owner: Identity): Promise<TaskPushNotificationConfig> {
    const problems = configProblems(config);
    if (problems.length > 0)
      throw new RequestMalformedError(`the push notification config is not valid: ${problems.join('; ')}`);
    const task = await this.read(config.taskId, owner);
    const configs = this.byTask.get(config.taskId) ?? new Map<string, Registration>();
    const id = config.id || randomUUID();
    if (!configs.has(id) && configs.size >= CONFIGS_PER_TASK)
      throw new RequestMalformedError(
        `task ${config.taskId} has ${CONFIGS_PER_TASK} push notification configs, the most it may have; delete one first`,
      );
    if (!this.byTask.has(config.taskId) && this.byTask.size >= TASKS_WATCHED)
      throw new RequestMalformedError(
        `the service watches ${TASKS_WATCHED} tasks for push notifications, the most it may; try again once some have ended`,
      );
    const stored = { ...config, id };
    configs.set(id, { config: stored, owner });
    if (!this.byTask.has(config.taskId)) {
      this.byTask.set(config.taskId, configs);
      void this.watch(config.taskId, task);
    }
    return stored;
  }

  /** The config `id` of task `taskId`, when `caller` registered it. */
  get(taskId: string, id: string, caller: Identity): TaskPushNotificationConfig {
    const found = this.byTask.get(taskId)?.get(id);
    if (!found || found.owner.name !== caller.name)
      throw new TaskNotFoundError(`task ${taskId} has no push notification config ${id} of yours`);
    return found.config;
  }

  /** The configs `caller` registered for task `taskId`. */
  list(taskId: string, caller: Identity): TaskPushNotificationConfig[] {
    return [...(this.byTask.get(taskId)?.values() ?? [])]
      .filter((r) => r.owner.name === caller.name)
      .map((r) => r.config);
  }

  /** Forget config `id` (the caller's); the task's watcher stops when it has none left. */
  delete(taskId: string, id: string, caller: Identity): void {
    this.get(taskId, id, caller);
    this.byTask.get(taskId)?.delete(id);
  }

  /** Read the task until it ends, delivering it to its webhooks each time its state changes. */
  private async watch(taskId: string, first: Task): Promise<void> {
    let seen = '';
    let task = first;
    try {
      for (;;) {
        const configs = this.byTask.get(taskId);
        if (!configs || configs.size === 0) return;
        const now = stateOf(task);
        if (now !== seen) {
          seen = now;
          await Promise.all([...configs.values()].map((r) => this.deliver(r.config, task)));
        }
        if (ended(task)) return;
        await new Promise((resolve) => setTimeout(resolve, READ_EVERY_MS).unref());
        const owner = [...configs.values()][0]!.owner;
        task = await this.read(taskId, owner).catch((err: unknown) => {
          this.log(`push notifications: task ${taskId} could not be read`, err);
          return task;
        });
      }
    } finally {
      this.byTask.delete(taskId);
    }
  }

  /** POST the task to one webhook, signed; tried {@link DELIVERY_ATTEMPTS} times. */
  private async deliver(config: TaskPushNotificationConfig, task: Task): Promise<void> {
    const { body, contentType } = this.serializer.serialize({ payload: { $case: 'task', value: task } }, task);
    for (let attempt = 1; attempt <= DELIVERY_ATTEMPTS; attempt++) {
      const t = Math.floor(Date.now() / 1000);
      const headers: Record<string, string> = {
        'content-type': contentType,
        [PUSH_SIGNATURE_HEADER]: `t=${t},sha256=${pushSignature(config.token, t, body)}`,
        'x-a2a-notification-token': config.token,
        ...(config.authentication
          ? { authorization: `${config.authentication.scheme} ${config.authentication.credentials}` }
          : {}),
      };
      try {
        const res = await fetch(config.url, {
          method: 'POST',
          headers,
          body,
          signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
          redirect: 'manual',
        });
        if (res.ok) return;
        if (res.status < 500 && res.status !== 408 && res.status !== 429)
          throw new Error(`the webhook answered ${res.status}`);
      } catch (err) {
        if (attempt === DELIVERY_ATTEMPTS)
          this.log(`push notification to ${config.url} for task ${task.id} was not delivered`, err);
      }
      await new Promise((resolve) => setTimeout(resolve, 250 * attempt).unref());
    }
  }
}

/** The signature of a delivery made at `t` (unix seconds): hex HMAC-SHA256 of `<t>.<body>` keyed by the config's token. */
export function pushSignature(token: string, t: number, body: string): string {
  return createHmac('sha256', token).update(`${t}.${body}`).digest('hex');
}

function configProblems(config: TaskPushNotificationConfig): string[] {
  const problems: string[] = [];
  if (!config.taskId) problems.push('"taskId" is empty: name the task to be notified about');
  let url: URL | undefined;
  try {
    url = new URL(config.url);
  } catch {
    problems.push(`"url" must be an http(s) URL, got ${JSON.stringify(String(config.url).slice(0, 80))}`);
  }
  if (url && url.protocol !== 'https:' && url.protocol !== 'http:')
    problems.push(`"url" must be an http(s) URL, got ${url.protocol}`);
  if (typeof config.token !== 'string' || config.token.length < MIN_TOKEN_CHARS || config.token.length > 512)
    problems.push(
      `"token" must be ${MIN_TOKEN_CHARS} to 512 characters: it keys the HMAC every delivery is signed with (${PUSH_SIGNATURE_HEADER})`,
    );
  if (config.id && config.id.length > 200) problems.push('"id" must be at most 200 characters');
  return problems;
}

function stateOf(task: Task): string {
  const parts = task.status?.message?.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')) ?? [];
  return JSON.stringify([task.status?.state, parts]);
}

function ended(task: Task): boolean {
  return isTerminal(task.status?.state);
}
