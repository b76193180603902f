/**
 * The service's Prometheus metrics: requests by route and status, starts, decisions made through
 * the service, refused starts, and the approvals waiting across all chains (read from visibility
 * when scraped). Workers in the same process add theirs to the same registry.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Baton } from '../client/baton';
import type { ApprovalRecord, PendingApproval } from '../common/approvals';
import { TEAM_MEMO } from '../common/messages';
import { AGE_BUCKETS, ageBucket } from '../eval/stats/approvals';
import { HttpProblem } from './problems';

/** The service's metric families in one registry. */
export class ServiceMetrics {
  readonly requests: Counter<'method' | 'route' | 'status'>;
  readonly requestSeconds: Histogram<'method' | 'route'>;
  readonly runsStarted: Counter<'agent'>;
  readonly decisions: Counter<'decision'>;
  readonly rateLimited: Counter;
  /** Time from an approval's request to its decision through the service, by team, approver and tool. */
  readonly decisionSeconds: Histogram<'team' | 'approver' | 'tool'>;
  /** Decisions through the service that came after the approval's deadline. */
  readonly slaBreaches: Counter<'team' | 'tool'>;
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
    this.requests = new Counter({
      name: 'baton_http_requests_total',
      help: 'HTTP requests, by method, route and status',
      labelNames: ['method', 'route', 'status'],
      ...on,
    });
    this.requestSeconds = new Histogram({
      name: 'baton_http_request_seconds',
      help: 'HTTP request latency (to the first byte of a stream)',
      labelNames: ['method', 'route'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      ...on,
    });
    this.runsStarted = new Counter({
      name: 'baton_runs_started_total',
      help: 'Chains started through the service, by first agent',
      labelNames: ['agent'],
      ...on,
    });
    this.decisions = new Counter({
      name: 'baton_approval_decisions_total',
      help: 'Approval decisions made through the service',
      labelNames: ['decision'],
      ...on,
    });
    this.rateLimited = new Counter({
      name: 'baton_starts_rate_limited_total',
      help: 'Starts refused by the per-identity rate limit',
      ...on,
    });
    this.decisionSeconds = new Histogram({
      name: 'baton_approval_decision_seconds',
      help: 'Time from an approval being asked to its decision through the service, by team, approver and tool ("handoff" for handoffs)',
      labelNames: ['team', 'approver', 'tool'],
      buckets: [1, 10, 30, 60, 300, 900, 1800, 3600, 4 * 3600, 24 * 3600],
      ...on,
    });
    this.slaBreaches = new Counter({
      name: 'baton_approval_sla_breaches_total',
      help: 'Decisions through the service made after the approval was due',
      labelNames: ['team', 'tool'],
      ...on,
    });
    const waiting = () => this.waitingSource;
    new Gauge({
      name: 'baton_approvals_pending_by_age',
      help: 'Approvals waiting across all chains by how long they have waited, and how many are overdue (age="overdue"), from the inbox',
      labelNames: ['age'],
      ...on,
      async collect() {
        const baton = waiting();
        if (!baton) return;
        try {
          const counts = Object.fromEntries([...AGE_BUCKETS, 'overdue'].map((b) => [b, 0]));
          let pageToken: string | undefined;
          do {
            const page = await baton.client.connection.withDeadline(Date.now() + 5_000, () =>
              baton.inbox({ limit: 500, ...(pageToken ? { pageToken } : {}) }),
            );
            for (const a of page.approvals) {
              counts[ageBucket(a.ageMs)]!++;
              if (a.overdue) counts.overdue!++;
            }
            pageToken = page.nextPageToken;
          } while (pageToken);
          for (const [age, n] of Object.entries(counts)) this.set({ age }, n);
        } catch {
          // Temporal unreachable: the gauge keeps its last values rather than failing the scrape.
        }
      },
    });
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
 * {@link observeDecision} with the team of chain `workflowId` read from its memo, after the answer:
 * the decision's caller never waits for its metrics.
 */
export function countDecision(
  baton: Baton,
  metrics: ServiceMetrics | undefined,
  workflowId: string,
  waiting: Pick<PendingApproval, 'expiresAt' | 'tool'>,
  record: ApprovalRecord,
): void {
  if (!metrics) return;
  void baton.client.workflow
    .getHandle(workflowId)
    .describe()
    .then(
      (d) => (d.memo?.[TEAM_MEMO] as { id?: string } | undefined)?.id,
      () => undefined,
    )
    .then((team) => observeDecision(metrics, { ...waiting, ...(team ? { team } : {}) }, record));
}

/** Count a decision made through the service: its time to decision, and a breach when it came after the approval was due. */
export function observeDecision(
  metrics: ServiceMetrics | undefined,
  waiting: Pick<PendingApproval, 'expiresAt' | 'tool'> & { team?: string },
  record: ApprovalRecord,
): void {
  if (!metrics || record.outcome === 'timed_out') return;
  const team = waiting.team?.split('@')[0] ?? 'unversioned';
  const tool = waiting.tool?.name ?? 'handoff';
  const seconds = (Date.parse(record.decidedAt) - Date.parse(record.requestedAt)) / 1000;
  if (Number.isFinite(seconds))
    metrics.decisionSeconds.observe({ team, approver: record.approver ?? 'unknown', tool }, Math.max(0, seconds));
  if (waiting.expiresAt !== undefined && record.decidedAt > waiting.expiresAt) metrics.slaBreaches.inc({ team, tool });
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
        throw new HttpProblem(
          401,
          'Unauthorized',
          'the metrics need the metrics token (Authorization: Bearer <token>)',
          undefined,
          { 'www-authenticate': 'Bearer' },
        );
      }
    }
    return c.body(await registry.metrics(), 200, { 'content-type': registry.contentType });
  };
}
