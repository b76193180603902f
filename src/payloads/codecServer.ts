/**
 * A codec server (Temporal's "codec endpoint"): POST `…/encode` and `…/decode` take and return
 * `{"payloads": [...]}` in Temporal's JSON, so the Temporal UI and `temporal --codec-endpoint`
 * show decrypted payloads to people holding a token, while the keys stay in this process.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { batonPayloadCodecs } from './codec';
import { CodecConfigError, PayloadDecryptionError } from './encryption';
import { codecOptionsFromEnv } from './keys';
import { loginPage, SESSION_COOKIE } from './codecLogin';

/** Options of {@link codecServerHandler} and {@link startCodecServer}. */
export interface CodecServerOptions {
  /** @default baton's codecs as the environment configures them (`BATON_ENCRYPTION_KEYS`, …) */
  codecs?: PayloadCodec[];
  /** Bearer tokens that may encode and decode (`Authorization: Bearer <token>`, as `temporal --codec-auth` sends). */
  tokens?: string[];
  /**
   * Your own check of a request, e.g. of the access token the Temporal UI passes for its signed-in
   * user; a request passes when it or a token does. A server needs `tokens` or `authorize`.
   */
  authorize?: (req: IncomingMessage) => boolean | Promise<boolean>;
  /** Browser origins allowed to call (the Temporal UI's). @default ["http://localhost:8233", "http://127.0.0.1:8233"] */
  origins?: string[];
  /** The largest request body accepted. @default 8 MiB */
  maxBodyBytes?: number;
}

/** Where a started codec server listens. */
export interface StartCodecServerOptions extends CodecServerOptions {
  /** @default 8081 */
  port?: number;
  /** @default "127.0.0.1" */
  host?: string;
}

/** A payload in Temporal's JSON: metadata values and data base64. */
interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

/** The origins of the Temporal UI of `temporal server start-dev`. */
export const DEV_UI_ORIGINS = ['http://localhost:8233', 'http://127.0.0.1:8233'];

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The request handler of a codec server, to mount in your own `node:http` server (any path ending
 * in `/encode` or `/decode`). `GET /` serves a sign-in page that sets a session cookie, for the UI
 * with "include cross-origin credentials" on.
 */
export function codecServerHandler(
  options: CodecServerOptions = {},
): (req: IncomingMessage, res: ServerResponse) => void {
  const tokens = (options.tokens ?? []).filter((t) => t !== '').map(digest);
  if (tokens.length === 0 && !options.authorize)
    throw new CodecConfigError([
      'a codec server needs an auth token (or an authorize function): it decrypts for whoever may call it',
    ]);
  const codecs = options.codecs ?? batonPayloadCodecs(codecOptionsFromEnv());
  const origins = new Set(options.origins ?? DEV_UI_ORIGINS);
  const sessions = new Set<string>();
  const maxBodyBytes = options.maxBodyBytes ?? 8 * 2 ** 20;
  const tokenOk = (token: string | undefined) =>
    token !== undefined && tokens.some((t) => timingSafeEqual(t, digest(token)));
  const allowed = async (req: IncomingMessage) =>
    tokenOk(bearer(req)) ||
    sessions.has(cookie(req, SESSION_COOKIE) ?? '') ||
    ((await options.authorize?.(req)) ?? false);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const origin = req.headers.origin;
    const own = origin !== undefined && originHost(origin) === req.headers.host;
    if (origin !== undefined && !own && !origins.has(origin) && !origins.has('*'))
      throw new HttpError(403, `origin ${origin} is not allowed`);
    if (origin !== undefined && !own) cors(res, origin);
    const path = new URL(req.url ?? '/', 'http://codec').pathname;
    if (req.method === 'OPTIONS') return void res.writeHead(204).end();
    if (req.method === 'GET' && path === '/') return html(res, 200, loginPage());
    if (req.method === 'POST' && path === '/login') {
      const token = new URLSearchParams(await readBody(req, maxBodyBytes)).get('token') ?? undefined;
      if (!tokenOk(token)) return html(res, 401, loginPage('That token is not valid.'));
      const session = randomBytes(24).toString('base64url');
      sessions.add(session);
      const secure = (req.socket as { encrypted?: boolean }).encrypted || req.headers['x-forwarded-proto'] === 'https';
      res.setHeader(
        'set-cookie',
        `${SESSION_COOKIE}=${session}; HttpOnly; Path=/; ${secure ? 'SameSite=None; Secure' : 'SameSite=Lax'}`,
      );
      return html(res, 200, loginPage(undefined, true));
    }
    const op = /\/(encode|decode)$/.exec(path)?.[1];
    if (!op) throw new HttpError(404, `no route ${req.method} ${path}: POST …/encode or …/decode`);
    if (req.method !== 'POST') throw new HttpError(405, `${path} takes POST`);
    if (!(await allowed(req))) throw new HttpError(401, 'missing or wrong token: send Authorization: Bearer <token>');
    const payloads = parsePayloads(await readBody(req, maxBodyBytes));
    const done = op === 'encode' ? await encode(codecs, payloads) : await decode(codecs, payloads);
    json(res, 200, { payloads: done.map(toJson) });
  }

  return (req, res) => {
    handle(req, res).catch((err: unknown) => {
      const status = err instanceof HttpError ? err.status : err instanceof PayloadDecryptionError ? 422 : 500;
      if (!res.headersSent) json(res, status, { error: status === 500 ? 'the codec failed' : (err as Error).message });
      else res.end();
    });
  };
}

/**
 * Serve {@link codecServerHandler} on `host:port`; point the Temporal UI's codec endpoint at the
 * returned `url` (`temporal server start-dev --ui-codec-endpoint <url>`); `close` stops it.
 */
export async function startCodecServer(options: StartCodecServerOptions = {}): Promise<{
  /** Where it listens, e.g. `http://127.0.0.1:8081`. */
  url: string;
  /** Stop serving. */
  close: () => Promise<void>;
}> {
  const server = http.createServer(codecServerHandler(options));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8081, options.host ?? '127.0.0.1', () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function encode(codecs: PayloadCodec[], payloads: Payload[]): Promise<Payload[]> {
  for (const codec of codecs) payloads = await codec.encode(payloads);
  return payloads;
}

async function decode(codecs: PayloadCodec[], payloads: Payload[]): Promise<Payload[]> {
  for (const codec of [...codecs].reverse()) payloads = await codec.decode(payloads);
  return payloads;
}

function cors(res: ServerResponse, origin: string): void {
  res.setHeader('access-control-allow-origin', origin);
  res.setHeader('access-control-allow-credentials', 'true');
  res.setHeader('access-control-allow-methods', 'POST, OPTIONS');
  res.setHeader('access-control-allow-headers', 'authorization, content-type, x-namespace');
  res.setHeader('access-control-max-age', '600');
  res.setHeader('vary', 'origin');
}

function parsePayloads(text: string): Payload[] {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'the body is not JSON');
  }
  const list = (body as { payloads?: unknown } | null)?.payloads;
  if (!Array.isArray(list)) throw new HttpError(400, 'expected {"payloads": [...]}');
  return list.map((p: unknown, i) => {
    const { metadata = {}, data } = (p ?? {}) as JsonPayload;
    const entries = typeof metadata === 'object' && metadata !== null ? Object.entries(metadata) : [];
    if (
      entries.some(([, v]) => typeof v !== 'string') ||
      (data !== undefined && data !== null && typeof data !== 'string')
    ) {
      throw new HttpError(400, `payload ${i} is not {"metadata": {key: base64}, "data": base64}`);
    }
    return {
      metadata: Object.fromEntries(entries.map(([k, v]) => [k, Buffer.from(v, 'base64')])),
      data: Buffer.from(data ?? '', 'base64'),
    };
  });
}

function toJson(p: Payload): JsonPayload {
  return {
    metadata: Object.fromEntries(
      Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? new Uint8Array()).toString('base64')]),
    ),
    data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
  };
}

function readBody(req: IncomingMessage, max: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) reject(new HttpError(413, `the body is over ${max} bytes`));
      else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function bearer(req: IncomingMessage): string | undefined {
  return /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();
}

function cookie(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return undefined;
}

function originHost(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function html(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(body);
}
