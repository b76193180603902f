/**
 * baton's HTTP service as a Hono app: mount it in your own server (any runtime Hono runs on, or
 * Node's `http` through `@hono/node-server`), or run it with `baton serve`.
 */
import { notificationRoutes } from './notify';
import type { NotificationServiceOptions } from './notify/options';
import { ChainRequests } from '../client/requests';
import { createRoute, OpenAPIHono } from '@hono/zod-openapi';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { register as globalRegistry, type Registry } from 'prom-client';
import type { Baton } from '../client/baton';
import type { DecisionSigner } from '../client/signing/signer';
import type { BatonTracing } from '../worker/telemetry';
import { approvalRoutes } from './approvals';
import { questionRoutes } from './questions';
import { inboxRoutes } from './inbox';
import { breakerRoutes } from './breakers';
import { Authenticator, type AuthOptions } from './auth';
import { BEARER, type ServiceApp, type ServiceContext, type ServiceEnv } from './context';
import { ApprovalsFeed } from './events';
import { DEFAULT_MAX_BODY_BYTES, bodySizeLimit, PayloadLimit } from './limits';
import { metricsHandler, ServiceMetrics } from './metrics';
import { jsonBody, problems } from './openapi';
import { PAGE_ASSETS, PAGE_HEADERS, pageHtml } from './page/html';
import { HttpProblem, sendProblem, toProblem } from './problems';
import { StartLimiter, type RateLimitOptions } from './rateLimit';
import { conversationRoutes } from './conversations';
import { type DatasetOptions, evaluationRoutes } from './evaluation';
import { runEventRoutes } from './runEvents';
import { runStreamRoutes } from './runStream';
import { steerRoutes } from './steer';
import { isUiStreamPath, uiStreamRoutes, type UiStreamOptions } from './ui-stream/routes';
import { tenantRoutes } from './tenancy';
import { runRoutes } from './runs';
import { IdentitySchema } from './schemas';
import { a2aRoutes, type A2AOptions } from './a2a';
import { mcpRoutes } from './mcp';
import { cloudEventRoutes, type CloudEventOptions } from './cloudevents';
import { arrivalOrder } from './arrival';

/** Options of {@link createBatonApp}. */
export interface BatonServiceOptions {
  /** The client the service starts, reads and decides chains with. */
  baton: Baton;
  /** How callers are authenticated; every `/v1` route needs a token. */
  auth: AuthOptions;
  /** The agents your workers serve; a start naming another is refused with 400. @default any (the workflow refuses unknown ones) */
  agents?: readonly string[];
  /** Starts per identity. @default 60 a minute */
  rateLimit?: RateLimitOptions;
  /** Where the service's metrics go, served at `/metrics`; `false` for none. @default prom-client's global registry */
  metrics?: Registry | false;
  /** Serve `/metrics` only to `Authorization: Bearer <metricsToken>`. @default open to anyone who reaches the service */
  metricsToken?: string;
  /** Whether the app serves `/metrics` itself; `false` when they are served elsewhere (`serveBaton`'s `metricsPort`). @default true */
  metricsRoute?: boolean;
  /** The largest request body, in bytes; a larger one is refused with 413 while it is read. @default 1 MiB (1,048,576) */
  maxBodyBytes?: number;
  /**
   * The largest JSON, in bytes, the service sends to Temporal in one request (a start's input, a
   * message with its conversation's start, a decision, a replay's overrides); more is refused with
   * 413 before anything is sent. @default the namespace's blob size limit (2 MiB unless configured) less 1 KiB
   */
  payloadLimitBytes?: number;
  /** A server span per request, in whose trace the chains it starts run. Give the Baton's client `tracing.clientInterceptors()` too. */
  tracing?: BatonTracing;
  /** Deadline of a request's calls to Temporal (a message's reply is waited for apart: `replyWaitMs`). @default 10 seconds */
  temporalTimeoutMs?: number;
  /**
   * How long `POST /v1/conversations/{id}/messages` waits for the reply of a message the conversation
   * took (a turn waiting for a model, a delegation or an approval) before it answers 202 with where
   * to follow it (`Location: /v1/conversations/{id}/messages/{key}`). A streamed message waits as long
   * as its turn takes, with a keep-alive comment every 15 seconds. @default 25 seconds
   */
  replyWaitMs?: number;
  /**
   * A start without a `workflowId` or an `Idempotency-Key` is keyed by its caller and its body for
   * this long: the same start again within it answers with the chain the first one started.
   * `0` turns it off. @default 10 minutes
   */
  idempotencyWindowMs?: number;
  /** How often the live approvals stream reads the waiting list. @default 1 second */
  approvalsPollMs?: number;
  /** Once aborted, the service's own calls to Temporal for its streams end: none is in flight when the connection closes next. `close()` of {@link serveBaton} aborts it. */
  signal?: AbortSignal;
  /**
   * The service's own key: it signs each decision it sends with it, naming the approver its token
   * proved and the token's issuer and subject, so the chain records the identity as `token`. The
   * team (or the run) lists the public key with `service: true` for the approvers it may speak for
   * (docs/signatures.md). A decision the caller signed itself (`signature`) is sent as it is.
   * @example signer: decisionSignerFromFile('/etc/baton/service.jwk')
   */
  signer?: DecisionSigner;
  /** Where unexpected errors are reported (never with a token). @default console.error */
  log?: (message: string, error?: unknown) => void;
  /** Where chains saved into datasets go (`POST /v1/runs/{id}/dataset`, the run page's buttons). @default none: the route answers 404 */
  datasets?: DatasetOptions;
  /** The team as an A2A agent: its card at `/.well-known/agent-card.json`, JSON-RPC at `/a2a` (docs/protocols.md); `false` for none. @default served, skills named by `agents` */
  a2a?: A2AOptions | false;
  /** The team as an MCP server (streamable HTTP) at `/mcp` (docs/protocols.md). @default true */
  mcp?: boolean;
  /** Signed CloudEvents at `POST /events` start chains or message conversations by the service's rules and its team's, once per event (docs/protocols.md). @default none */
  cloudEvents?: CloudEventOptions;
  /** The AI SDK's UI message stream routes (`/v1/ui/…`, docs/apps.md). */
  uiStream?: UiStreamOptions;
  /** Decisions from notifications: email links and Slack interactions (docs/notifications.md). @default none */
  notifications?: NotificationServiceOptions;
}

const meRoute = createRoute({
  operationId: 'getMe',
  method: 'get',
  path: '/v1/me',
  tags: ['identity'],
  summary: "The caller's identity and roles",
  security: BEARER,
  responses: { 200: jsonBody(IdentitySchema, 'Who the token stands for'), ...problems(401) },
});

/**
 * The service: the REST API under `/v1`, `/openapi.json`, `/healthz`, `/metrics`, and the approvals
 * page at `/` (a run at `/runs/<id>`).
 * @example
 * const app = createBatonApp({ baton, auth: { tokens: [{ token: process.env.ALICE_TOKEN!, identity: 'alice', roles: ['approver'] }] } });
 * serve({ fetch: app.fetch, port: 8080 });   // @hono/node-server
 */
export function createBatonApp(options: BatonServiceOptions): ServiceApp {
  const authenticator = new Authenticator(options.auth);
  const log =
    options.log ?? ((message: string, error?: unknown) => console.error(`baton service: ${message}`, error ?? ''));
  const ctx: ServiceContext = {
    baton: options.baton,
    ...(options.agents ? { agents: options.agents } : {}),
    limiter: new StartLimiter(options.rateLimit),
    ...(options.metrics !== false
      ? { metrics: ServiceMetrics.in(options.metrics ?? globalRegistry, options.baton) }
      : {}),
    feed: new ApprovalsFeed(
      options.baton,
      options.approvalsPollMs ?? 1_000,
      (err) => log('reading the pending approvals failed', err),
      options.signal,
    ),
    ...(options.signal ? { closing: options.signal } : {}),
    requests: new ChainRequests(options.baton.client),
    temporalTimeoutMs: options.temporalTimeoutMs ?? 10_000,
    replyWaitMs: nonNegative(options.replyWaitMs, 25_000, 'replyWaitMs'),
    idempotencyWindowMs: nonNegative(options.idempotencyWindowMs, 600_000, 'idempotencyWindowMs'),
    payloadLimit: new PayloadLimit(options.baton.client, options.payloadLimitBytes),
    log,
    ...(options.signer ? { signer: options.signer } : {}),
  };
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!(Number.isInteger(maxBodyBytes) && maxBodyBytes > 0))
    throw new Error(`maxBodyBytes must be a whole number of bytes above 0, got ${options.maxBodyBytes}`);
  const app: ServiceApp = new OpenAPIHono<ServiceEnv>({
    defaultHook: (result) => {
      if (result.success) return;
      const errors = result.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
      throw new HttpProblem(
        400,
        'Invalid request',
        'The request does not match the API; see the field errors.',
        errors,
      );
    },
  });
  app.onError((err, c) => {
    const problem = toProblem(err);
    if (problem.status >= 500) log(`${c.req.method} ${c.req.path} failed`, err);
    return sendProblem(c, problem);
  });
  app.notFound((c) => sendProblem(c, new HttpProblem(404, 'Not found', `no route ${c.req.method} ${c.req.path}`)));

  if (options.tracing) app.use('*', serverSpans(options.tracing));
  if (ctx.metrics) app.use('*', requestMetrics(ctx.metrics));
  // Links and Slack prove themselves by their own signatures, not a bearer token: registered before its check.
  if (options.notifications) notificationRoutes(app, ctx, options.notifications);
  // A conversation's messages keep the order they arrived in, whatever their token and body take to read.
  app.use('/v1/*', arrivalOrder());
  app.use('/v1/*', async (c, next) => {
    const checked = await authenticator.check(c.req.header('authorization'));
    c.set('identity', checked.identity);
    c.set('token', checked.token);
    await next();
  });
  app.use('/v1/*', bodySizeLimit(maxBodyBytes));
  app.use('/v1/*', async (c, next) => {
    // Streams and replies wait on purpose (a message's own calls to Temporal get the deadline there); every other request's calls get it.
    if (c.req.path.endsWith('/events') || c.req.path.endsWith('/stream') || MESSAGE_PATH.test(c.req.path))
      return next();
    // A chat's answer streams as long as it takes; those routes put the deadline on their own calls.
    if (isUiStreamPath(c.req.path)) return next();
    return options.baton.client.connection.withDeadline(Date.now() + ctx.temporalTimeoutMs, () => next());
  });

  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'A static token or a JWT, mapped to an identity and roles',
  });
  app.openapi(meRoute, (c) => c.json(c.get('identity'), 200));
  tenantRoutes(app, ctx);
  runRoutes(app, ctx);
  runEventRoutes(app, ctx);
  runStreamRoutes(app, ctx);
  steerRoutes(app, ctx);
  conversationRoutes(app, ctx);
  approvalRoutes(app, ctx);
  questionRoutes(app, ctx);
  inboxRoutes(app, ctx);
  breakerRoutes(app, ctx);
  evaluationRoutes(app, ctx, options.datasets);
  if (options.a2a !== false) a2aRoutes(app, ctx, authenticator, options.a2a, maxBodyBytes);
  if (options.mcp !== false) mcpRoutes(app, ctx, authenticator, maxBodyBytes);
  if (options.cloudEvents) cloudEventRoutes(app, ctx, options.cloudEvents, maxBodyBytes);
  uiStreamRoutes(app, ctx, options.uiStream);
  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'baton',
      version: '1',
      description: 'Start, follow and audit agent chains; decide the handoffs that wait for a person.',
    },
  });
  app.get('/healthz', async (c) => {
    try {
      await options.baton.client.connection.withDeadline(Date.now() + 3_000, () =>
        options.baton.client.workflowService.getSystemInfo({}),
      );
      return c.json({ status: 'ok', temporal: 'reachable' }, 200);
    } catch {
      return c.json({ status: 'unavailable', temporal: 'unreachable' }, 503);
    }
  });
  if (ctx.metrics && options.metricsRoute !== false)
    app.get('/metrics', metricsHandler(ctx.metrics.registry, options.metricsToken));
  app.get('/', (c) => c.html(pageHtml('assets/'), 200, PAGE_HEADERS));
  app.get('/runs/:id', (c) => c.html(pageHtml('../assets/'), 200, PAGE_HEADERS));
  app.get('/evals/:id', (c) => c.html(pageHtml('../assets/'), 200, PAGE_HEADERS));
  app.get('/experiments/:id', (c) => c.html(pageHtml('../assets/'), 200, PAGE_HEADERS));
  app.get('/assets/:file', (c) => {
    const file = c.req.param('file');
    // An own property only: `__proto__` or `constructor` is no asset.
    const asset = Object.hasOwn(PAGE_ASSETS, file) ? PAGE_ASSETS[file] : undefined;
    if (!asset) throw new HttpProblem(404, 'Not found', `no asset ${c.req.param('file')}`);
    return c.body(asset.body, 200, { ...PAGE_HEADERS, 'content-type': asset.type, 'cache-control': 'no-cache' });
  });
  return app;
}

/** A conversation message, sent or followed. */
const MESSAGE_PATH = /^\/v1\/conversations\/[^/]+\/messages(?:\/[^/]+)?$/;

function nonNegative(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!(Number.isFinite(value) && value >= 0))
    throw new Error(`${name} must be a number of milliseconds from 0, got ${value}`);
  return value;
}

/** Count and time each request by its route (not its path, so ids do not become labels). */
function requestMetrics(metrics: ServiceMetrics): MiddlewareHandler<ServiceEnv> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const route = c.res.status === 404 && !matched(c) ? 'unmatched' : routePath(c, -1);
    metrics.requests.inc({ method: c.req.method, route, status: String(c.res.status) });
    metrics.requestSeconds.observe({ method: c.req.method, route }, (performance.now() - started) / 1000);
  };
}

function matched(c: Parameters<MiddlewareHandler>[0]): boolean {
  const path = routePath(c, -1);
  return path !== '*' && path !== '/v1/*';
}

/** A server span per request, continuing the caller's trace (`traceparent`) when it sends one. */
function serverSpans(tracing: BatonTracing): MiddlewareHandler<ServiceEnv> {
  return async (c, next) => {
    const parent = propagation.extract(context.active(), Object.fromEntries(c.req.raw.headers));
    const span = tracing.tracer.startSpan(
      `${c.req.method} ${c.req.path}`,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': c.req.method, 'url.path': c.req.path } },
      parent,
    );
    try {
      await context.with(trace.setSpan(parent, span), () => next());
      span.updateName(`${c.req.method} ${routePath(c, -1)}`);
      span.setAttributes({ 'http.route': routePath(c, -1), 'http.response.status_code': c.res.status });
      if (c.res.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    } finally {
      span.end();
    }
  };
}
