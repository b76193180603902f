/** The HTTP service on a real Temporal dev server, for the server tests. */
import type { Registry } from 'prom-client';
import type { Team } from '../../src/agents/team';
import { Baton } from '../../src/client/baton';
import type { DevServer } from '../../src/devserver/server';
import { serveBaton, type BatonService, type ServeBatonOptions, type StaticToken } from '../../src/server';
import type { CreateWorkerOptions } from '../../src/worker';
import { withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

/** Test tokens by identity. */
export const TOKENS = {
  alice: 'alice-approver-token',
  bob: 'bob-approver-token',
  ops: 'ops-starter-token',
  viewer: 'viewer-only-token',
  admin: 'admin-token-0001',
  /** A token whose identity has no role: it may call `/v1/me` and nothing else. */
  nobody: 'no-role-token-0001',
} as const;

export const STATIC_TOKENS: StaticToken[] = [
  { token: TOKENS.alice, identity: 'alice', roles: ['approver'] },
  { token: TOKENS.bob, identity: 'bob', roles: ['approver'] },
  { token: TOKENS.ops, identity: 'ops', roles: ['starter'] },
  { token: TOKENS.viewer, identity: 'viewer', roles: ['viewer'] },
  { token: TOKENS.admin, identity: 'admin', roles: ['admin'] },
  { token: TOKENS.nobody, identity: 'nobody', roles: [] },
];

/** What a test gets: the service, its Baton and a caller. */
export interface ServiceFixture {
  service: BatonService;
  baton: Baton;
  queue: string;
  call: Caller;
  /** Lines the service logged. */
  logged: string[];
}

/** An HTTP answer, its body parsed when it is JSON. */
export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export type Caller = (
  method: string,
  path: string,
  options?: { token?: string; body?: unknown; headers?: Record<string, string> },
) => Promise<Answer>;

/** A caller of the service at `url`. */
export function caller(url: string): Caller {
  return async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined) headers['content-type'] ??= 'application/json';
    const res = await fetch(`${url}${path}`, {
      method,
      headers,
      ...(options.body !== undefined
        ? { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }
        : {}),
    });
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: res.status, headers: res.headers, text, body };
  };
}

/** Run `fn` with the service in front of a worker for `team` on a task queue of its own. */
export async function withService<T>(
  env: DevServer,
  team: Team,
  fn: (fixture: ServiceFixture) => Promise<T>,
  options: {
    service?: Partial<ServeBatonOptions>;
    worker?: Partial<CreateWorkerOptions>;
    registry?: Registry;
    baton?: (queue: string) => Baton;
  } = {},
): Promise<T> {
  return withWorker(
    env,
    team,
    async (workerBaton, queue) => {
      const baton = options.baton?.(queue) ?? workerBaton;
      const logged: string[] = [];
      const service = await serveBaton({
        baton,
        auth: { tokens: STATIC_TOKENS },
        port: 0,
        host: '127.0.0.1',
        agents: team.ids,
        metrics: options.registry ?? false,
        approvalsPollMs: 200,
        log: (message, err) =>
          logged.push(`${message} ${err instanceof Error ? (err.stack ?? err.message) : String(err ?? '')}`),
        ...options.service,
      });
      try {
        return await fn({ service, baton, queue, call: caller(service.url), logged });
      } finally {
        await service.close();
      }
    },
    { ...(options.registry ? { metrics: { registry: options.registry } } : {}), ...options.worker },
  );
}

/**
 * Run `fn` with the service alone, no worker: for what never waits on a chain (tokens, metrics,
 * refusals at the edge). Chains it starts stay scheduled.
 */
export async function withBareService<T>(
  env: DevServer,
  fn: (fixture: Omit<ServiceFixture, 'queue'>) => Promise<T>,
  options: Partial<ServeBatonOptions> = {},
): Promise<T> {
  const baton = new Baton({ client: env.client, taskQueue: `bare-${Date.now().toString(36)}` });
  const logged: string[] = [];
  const service = await serveBaton({
    baton,
    auth: { tokens: STATIC_TOKENS },
    port: 0,
    host: '127.0.0.1',
    metrics: false,
    log: (message, err) =>
      logged.push(`${message} ${err instanceof Error ? (err.stack ?? err.message) : String(err ?? '')}`),
    ...options,
  });
  try {
    return await fn({ service, baton, call: caller(service.url), logged });
  } finally {
    await service.close();
  }
}

/** The approval a chain waits for, once the inbox shows it. */
export async function pendingOf(call: Caller, workflowId: string) {
  const answer = await waitFor(
    () => call('GET', '/v1/approvals', { token: TOKENS.alice }),
    (a) => a.status === 200 && a.body.approvals.some((p: { workflowId: string }) => p.workflowId === workflowId),
  );
  return answer.body.approvals.find((p: { workflowId: string }) => p.workflowId === workflowId);
}
