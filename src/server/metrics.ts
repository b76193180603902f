/**
 * The service's Prometheus metrics: requests by route and status, starts, decisions made through
 * the service, refused starts, and the approvals waiting across all chains (read from visibility
 * when scraped). Workers in the same process add theirs to the same registry.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Baton } from '../client/baton';
import { HttpProblem } from './problems';

/** The service's metric families in one registry. */
export class ServiceMetrics {
  readonly requests: Counter<'method' | 'route' | 'status'>;
  readonly requestSeconds: Histogram<'method' | 'route'>;
  readonly runsStarted: Counter<'agent'>;
  readonly decisions: Counter<'decision'>;
  readonly rateLimited: Counter;
  private waitingSource?: Baton;

  private static readonly byRegistry = new WeakMap<Registry, ServiceMetrics>();

  /** The metrics of `registry`, registered on first use; `baton` answers the approvals-waiting gauge. */
  static in(registry: Registry, baton: Baton): ServiceMetrics {
    let metrics = ServiceMetrics.byRegistry.get(registry);
    if (!metrics) {
      metrics = new ServiceMetrics(registry);
      ServiceMetrics.byRegistry.set(registry, metrics);
    }
    metrics.waitingSource = baton;
    return metrics;
  }

  private constructor(readonly registry: Registry) {
    const on = { registers: [registry] };
    this.requests = new Counter({ name: 'baton_http_requests_total', help: 'HTTP requests, by method, route and status', labelNames: ['method', 'route', 'status'], ...on });
    this.requestSeconds = new Histogram({ name: 'baton_http_request_seconds', help: 'HTTP request latency (to the first byte of a stream)', labelNames: ['method', 'route'], buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], ...on });
    this.runsStarted = new Counter({ name: 'baton_runs_started_total', help: 'Chains started through the service, by first agent', labelNames: ['agent'], ...on });
    this.decisions = new Counter({ name: 'baton_approval_decisions_total', help: 'Approval decisions made through the service', labelNames: ['decision'], ...on });
    this.rateLimited = new Counter({ name: 'baton_starts_rate_limited_total', help: 'Starts refused by the per-identity rate limit', ...on });
    const waiting = () => this.waitingSource;
    new Gauge({
      name: 'baton_approvals_waiting',
      help: 'Handoffs waiting for approval across all chains (from visibility; the same on every replica)',
      ...on,
      async collect() {
        const baton = waiting();
        if (!baton) return;
        try {
          this.set((await baton.client.connection.withDeadline(Date.now() + 3_000, () => baton.pending())).length);
        } catch {
          // Temporal unreachable: the gauge keeps its last value rather than failing the scrape.
        }
      },
    });
  }
}

/**
 * `GET /metrics` of `registry`; with `token`, only for `Authorization: Bearer <token>` (401
 * otherwise), as Prometheus sends with `authorization: {credentials: <token>}`.
 */
export function metricsHandler(registry: Registry, token?: string): (c: Context) => Promise<Response> {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  const expected = token === undefined ? undefined : digest(token);
  return async (c) => {
    if (expected) {
      const given = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '')?.[1];
      if (!given || !timingSafeEqual(digest(given), expected)) {
        throw new HttpProblem(401, 'Unauthorized', 'the metrics need the metrics token (Authorization: Bearer <token>)', undefined, { 'www-authenticate': 'Bearer' });
      }
    }
    return c.body(await registry.metrics(), 200, { 'content-type': registry.contentType });
  };
}
