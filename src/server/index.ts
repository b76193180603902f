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
import { createBatonApp, type BatonServiceOptions } from './app';
import { parseTokens, type AuthOptions } from './auth';
import type { ServiceApp } from './context';

export { createBatonApp, type BatonServiceOptions } from './app';
export { Permission, Role, type AuthOptions, type Identity, type JwtAuthOptions, type StaticToken } from './auth';
export type { ServiceApp, ServiceEnv } from './context';
export type { RateLimitOptions } from './rateLimit';
export type { Problem, FieldError } from './problems';

/** Options of {@link serveBaton}. */
export interface ServeBatonOptions extends BatonServiceOptions {
  /** @default 8080 */
  port?: number;
  /** @default "0.0.0.0" */
  host?: string;
}

/** A running service. */
export interface BatonService {
  app: ServiceApp;
  /** e.g. `http://127.0.0.1:8080` */
  url: string;
  /** Stop accepting requests and close open streams. */
  close(): Promise<void>;
}

/**
 * Run the service on Node's HTTP server.
 * @example
 * const service = await serveBaton({ baton: await connectBaton(), auth: authOptionsFromEnv(), port: 8080 });
 */
export async function serveBaton(options: ServeBatonOptions): Promise<BatonService> {
  const app = createBatonApp(options);
  const host = options.host ?? '0.0.0.0';
  const server = await new Promise<ServerType>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: options.port ?? 8080, hostname: host }, () => resolve(s));
    s.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  return {
    app,
    url: `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Event streams stay open until their client leaves; a stopping service ends them.
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}

/**
 * How callers authenticate, from the environment: `BATON_TOKENS` (a JSON array of
 * `{token | sha256, identity, roles}`) or `BATON_TOKENS_FILE` (a file holding one), and/or
 * `BATON_JWKS_URL` with `BATON_JWT_ISSUER`, `BATON_JWT_AUDIENCE`, `BATON_JWT_IDENTITY_CLAIM`
 * (default `sub`) and `BATON_JWT_ROLES_CLAIM` (default `roles`). `undefined` when none is set.
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
      }
    : undefined;
  if (!tokens && !jwt) return undefined;
  return { ...(tokens ? { tokens } : {}), ...(jwt ? { jwt } : {}) };
}
