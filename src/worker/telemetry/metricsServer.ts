/**
 * A worker's metrics served over HTTP: `GET /metrics` of a registry with the process's default
 * metrics, on the port `createWorker({ metrics })` or `BATON_METRICS_PORT` names.
 */
import http from 'node:http';
import { collectDefaultMetrics, type Registry } from 'prom-client';

/**
 * Serve `registry` as `GET /metrics` on `port`, with the process's default metrics. The server does
 * not keep the process alive; `close()` stops it.
 */
export async function serveMetrics(registry: Registry, port: number, host = '0.0.0.0'): Promise<http.Server> {
  if (!defaultsCollected.has(registry)) {
    defaultsCollected.add(registry);
    try {
      collectDefaultMetrics({ register: registry });
    } catch {
      // The process's metrics are already in this registry (the application collects them itself).
    }
  }
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (err: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(err.message),
    );
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
  server.unref();
  return server;
}

const defaultsCollected = new WeakSet<Registry>();

/** The port `BATON_METRICS_PORT` names, if any. */
export function metricsPortFromEnv(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env.BATON_METRICS_PORT;
  if (raw === undefined || raw === '') return undefined;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`BATON_METRICS_PORT must be a port number, got ${JSON.stringify(raw)}`);
  return port;
}
