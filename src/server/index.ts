/**
 * baton's HTTP service: the REST API, the approvals page, `/metrics` and `/openapi.json`.
 * {@link createBatonApp} gives the Hono app to mount in your own server; {@link serveBaton} runs it
 * on Node — `import { serveBaton, authOptionsFromEnv } from 'baton-agents/server'`.
 * @packageDocumentation
 * @module baton-agents/server
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { register as globalRegistry } from 'prom-client';
import { createBatonApp, type BatonServiceOptions } from './app';
import { parseTokens, type AuthOptions } from './auth';
import type { ServiceApp } from './context';
import { metricsHandler } from './metrics';
import { HttpProblem, sendProblem, toProblem } from './problems';

export { createBatonApp, type BatonServiceOptions } from './app';
export { Permission, Role, type AuthOptions, type Identity, type JwtAuthOptions, type StaticToken } from './auth';
export type { ServiceApp, ServiceEnv } from './context';
export type { RateLimitOptions } from './rateLimit';
export type { Problem, FieldError } from './problems';
export type { UiStreamOptions } from './ui-stream/routes';
export type { UiChunk } from './ui-stream/chunks';
export type { UiMessage } from './ui-stream/messages';
export type { CloudEventOptions, CloudEventRule } from './cloudevents';

/** Options of {@link serveBaton}. */
export interface ServeBatonOptions extends BatonServiceOptions {
  /** @default 8080 */
  port?: number;
  /** The address to listen on: loopback unless told otherwise; `"0.0.0.0"` (or `"::"`) for every interface. @default "127.0.0.1" */
  host?: string;
  /**
   * Serve `/metrics` on this port (on `metricsHost`) instead of on the service's own, so the API's
   * port can be public while the metrics stay inside. @default on the service's port
   */
  metricsPort?: number;
  /** The address the metrics port listens on. @default `host` */
  metricsHost?: string;
}

/** A running service. */
export interface BatonService {
  app: ServiceApp;
  /** e.g. `http://127.0.0.1:8080` */
  url: string;
  /** Where `/metrics` is served when `metricsPort` was given, e.g. `http://127.0.0.1:9464/metrics`. */
  metricsUrl?: string;
  /** Stop accepting requests, close open streams and end the calls to Temporal made for them. */
  close(): Promise<void>;
}

const DEFAULT_HOST = '127.0.0.1';

function listen(
  fetch: (request: Request) => Response | Promise<Response>,
  port: number,
  host: string,
): Promise<ServerType> {
  return new Promise<ServerType>((resolve, reject) => {
    const s = serve({ fetch, port, hostname: host }, () => resolve(s));
    s.once('error', reject);
  });
}

function urlOf(server: ServerType, host: string): string {
  const { port } = server.address() as AddressInfo;
  return `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host}:${port}`;
}

function close(server: ServerType): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    // Event streams stay open until their client leaves; a stopping service ends them.
    (server as { closeAllConnections?: () => void }).closeAllConnections?.();
  });
}

/** A server of `/metrics` alone, as the service would answer it. */
function metricsApp(options: ServeBatonOptions): Hono {
  const app = new Hono();
  app.onError((err, c) => sendProblem(c, toProblem(err)));
  app.notFound((c) =>
    sendProblem(
      c,
      new HttpProblem(404, 'Not found', `no route ${c.req.method} ${c.req.path}; this port serves GET /metrics`),
    ),
  );
  if (options.metrics !== false)
    app.get('/metrics', metricsHandler(options.metrics ?? globalRegistry, options.metricsToken));
  return app;
}

/**
 * Run the service on Node's HTTP server.
 * @example
 * const service = await serveBaton({ baton: await connectBaton(), auth: authOptionsFromEnv(), port: 8080 });
 */
export async function serveBaton(options: ServeBatonOptions): Promise<BatonService> {
  const separateMetrics = options.metricsPort !== undefined;
  const closing = new AbortController();
  options.signal?.addEventListener('abort', () => closing.abort(), { once: true });
  const app = createBatonApp({
    ...options,
    signal: closing.signal,
    ...(separateMetrics ? { metricsRoute: false } : {}),
  });
  const host = options.host ?? DEFAULT_HOST;
  const server = await listen(app.fetch, options.port ?? 8080, host);
  let metricsServer: ServerType | undefined;
  try {
    if (separateMetrics)
      metricsServer = await listen(metricsApp(options).fetch, options.metricsPort!, options.metricsHost ?? host);
  } catch (err) {
    await close(server);
    throw err;
  }
  return {
    app,
    url: urlOf(server, host),
    ...(metricsServer ? { metricsUrl: `${urlOf(metricsServer, options.metricsHost ?? host)}/metrics` } : {}),
    close: async () => {
      // First the service's own calls to Temporal, so that none is in flight once the caller closes the connection.
      closing.abort();
      await Promise.all([close(server), ...(metricsServer ? [close(metricsServer)] : [])]);
    },
  };
}

/**
 * How callers authenticate, from the environment: `BATON_TOKENS` (a JSON array of
 * `{token | sha256, identity, roles}`) or `BATON_TOKENS_FILE` (a file holding one), and/or
 * `BATON_JWKS_URL` with `BATON_JWT_ISSUER`, `BATON_JWT_AUDIENCE`, `BATON_JWT_IDENTITY_CLAIM`
 * (default `sub`), `BATON_JWT_ROLES_CLAIM` (default `roles`), `BATON_JWT_TENANT_CLAIM` (default `tenant`) and `BATON_JWT_ALLOW_MISSING_EXP`
 * (`true` to accept JWTs without `exp`). `undefined` when none is set.
 */
export function authOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): AuthOptions | undefined {
  const tokens = env.BATON_TOKENS
    ? parseTokens(env.BATON_TOKENS, 'BATON_TOKENS')
    : env.BATON_TOKENS_FILE
      ? parseTokens(fs.readFileSync(env.BATON_TOKENS_FILE, 'utf8'), env.BATON_TOKENS_FILE)
      : undefined;
  const list = (v: string | undefined) => (v ? (v.includes(',') ? v.split(',').map((s) => s.trim()) : v) : undefined);
  const jwt = env.BATON_JWKS_URL
    ? {
        jwksUrl: env.BATON_JWKS_URL,
        ...(env.BATON_JWT_ISSUER ? { issuer: list(env.BATON_JWT_ISSUER)! } : {}),
        ...(env.BATON_JWT_AUDIENCE ? { audience: list(env.BATON_JWT_AUDIENCE)! } : {}),
        ...(env.BATON_JWT_IDENTITY_CLAIM ? { identityClaim: env.BATON_JWT_IDENTITY_CLAIM } : {}),
        ...(env.BATON_JWT_ROLES_CLAIM ? { rolesClaim: env.BATON_JWT_ROLES_CLAIM } : {}),
        ...(env.BATON_JWT_TENANT_CLAIM ? { tenantClaim: env.BATON_JWT_TENANT_CLAIM } : {}),
        ...(flag(env.BATON_JWT_ALLOW_MISSING_EXP, 'BATON_JWT_ALLOW_MISSING_EXP') ? { allowMissingExp: true } : {}),
      }
    : undefined;
  if (!tokens && !jwt) return undefined;
  return { ...(tokens ? { tokens } : {}), ...(jwt ? { jwt } : {}) };
}

function flag(raw: string | undefined, name: string): boolean {
  if (raw === undefined || raw === '' || /^(false|0|no)$/i.test(raw)) return false;
  if (/^(true|1|yes)$/i.test(raw)) return true;
  throw new Error(`${name} must be true or false, got ${JSON.stringify(raw)}`);
}
