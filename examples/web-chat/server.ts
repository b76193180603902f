/**
 * The web chat and baton's HTTP service on one origin: the built app under `/chat/`, and
 * everything else — the API under `/v1` (the chat's `/v1/ui/…` routes among it), the approvals
 * page at `/` — answered by baton's service, as `baton serve` answers it. One origin means the app
 * needs no CORS; a deployment gets the same from a reverse proxy in front of both.
 */
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import { createBatonApp, type BatonServiceOptions } from 'baton-agents/server';

/** Options of {@link serveWebChat}: the service's own, and where the app's build is. */
export interface WebChatServerOptions extends BatonServiceOptions {
  /** The folder of the app's build (`buildWebChat()`). */
  dist: string;
  /** @default 8080 */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /** The path the app is served under: its build's `base`. @default '/chat/' */
  path?: string;
}

/** A running web chat: the service's URL, the chat's, and how to stop both. */
export interface WebChatServer {
  url: string;
  chatUrl: string;
  close(): Promise<void>;
}

/** Serve the app's build and baton's service on one port. */
export async function serveWebChat(options: WebChatServerOptions): Promise<WebChatServer> {
  const { dist, port = 8080, host = '127.0.0.1', path: base = '/chat/', ...service } = options;
  const bare = base.replace(/\/$/, '');
  const api = createBatonApp(service);
  const site = new Hono();
  site.get(bare, (c) => c.redirect(base));
  // Built files have hashed names; the page itself is read again on every load, so a new build shows at once.
  site.use(`${base}*`, async (c, next) => {
    await next();
    if (c.res.headers.get('content-type')?.startsWith('text/html')) c.res.headers.set('cache-control', 'no-cache');
  });
  site.use(`${base}*`, serveStatic({ root: dist, rewriteRequestPath: (p) => p.slice(bare.length) }));
  const onChat = (pathname: string) => pathname === bare || pathname.startsWith(base);
  const server = await new Promise<ServerType>((resolve, reject) => {
    const s = serve(
      {
        fetch: (req, env) => (onChat(new URL(req.url).pathname) ? site.fetch(req, env) : api.fetch(req, env)),
        port,
        hostname: host,
      },
      () => resolve(s),
    );
    s.once('error', reject);
  });
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${(server.address() as AddressInfo).port}`;
  return {
    url,
    chatUrl: `${url}${base}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // The chat's streams stay open until their reader leaves; a stopping server ends them.
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}
