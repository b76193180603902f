import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { collectDefaultMetrics, register as globalRegistry } from 'prom-client';
import { Baton } from '../client/baton';
import { decisionSignerFromFile } from '../client/signing/signer';
import { notificationServiceOptionsFromEnv } from '../server/notify/options';
import { temporalConfig } from '../client/connect';
import { DEFAULT_TASK_QUEUE } from '../common/messages';
import { batonDataConverter } from '../payloads/codec';
import { authOptionsFromEnv, serveBaton } from '../server';
import { createWorker, ensureSearchAttributes } from '../worker';
import { BatonTracing, tracingOptionsFromEnv } from '../worker/telemetry';
import { integerOption, parse, UsageError } from './args';
import type { Command } from './context';
import { loadTeamModule } from './team';
import type { EventRule } from '../agents/eventRules';
import type { CloudEventOptions, CloudEventRule } from '../server/cloudevents';

/** `baton serve`: the HTTP service, the approvals page, `/metrics`; with `--team`, a worker in the same process. */
export const serveCommand: Command = {
  synopsis:
    'baton serve [--team <module>] [--port 8080] [--host 127.0.0.1] [--metrics-port <n>] [--task-queue baton] [--dataset-dir <dir>]',
  summary: 'the HTTP service: REST API, approvals page, live events, metrics',
  help: `Options:
  --team <module>        also serve this team's agents in this process (a worker), and refuse
                         starts naming other agents; without it, workers run elsewhere
  --port <n>             the port to listen on (default 8080, or PORT)
  --host <address>       the address to listen on (default 127.0.0.1, or BATON_HOST): loopback
                         only; 0.0.0.0 for every interface (in a container, behind a proxy)
  --metrics-port <n>     serve /metrics on this port instead (or BATON_METRICS_PORT)
  --task-queue <name>    the task queue chains start on (default baton)
  --dataset-dir <dir>    where the run page saves chains into datasets (<name>.jsonl; or BATON_DATASET_DIR)

Routes: the approvals page at /, the API under /v1 (see /openapi.json), /healthz, /metrics.

Every /v1 request needs a bearer token. Configure them in the environment:
  BATON_TOKENS           JSON: [{"token": "…", "identity": "alice", "roles": ["approver"]}]
                         (or "sha256": "<hex digest of the token>" instead of "token");
                         roles: viewer, starter, approver, admin
  BATON_TOKENS_FILE      a file holding that JSON
  BATON_JWKS_URL         verify JWTs against this JWKS (with BATON_JWT_ISSUER, BATON_JWT_AUDIENCE,
                         BATON_JWT_IDENTITY_CLAIM (default sub), BATON_JWT_ROLES_CLAIM (default roles),
                         BATON_JWT_TENANT_CLAIM (default tenant: the caller's tenant));
                         a JWT without "exp" is refused unless BATON_JWT_ALLOW_MISSING_EXP=true
A token with no role reads nothing. Other settings:
  BATON_STARTS_PER_MINUTE  starts an identity may make per minute (default 60)
  BATON_METRICS_TOKEN    /metrics answers only Authorization: Bearer <this token>
  BATON_MAX_BODY_BYTES   the largest request body (default 1048576); larger ones get 413
  BATON_SERVICE_KEY      the service's Ed25519 private key (a file: PKCS#8 PEM or a JWK), with which it
                         signs each decision for the identity its token proved; BATON_SERVICE_KID
                         names its key id (default: the JWK's "kid", else the key's thumbprint). List
                         the public key in the team's approverKeys with service: true
  BATON_EVENTS_SECRET    serve POST /events: signed CloudEvents start chains or message conversations
                         by the team's event rules (--team), and BATON_EVENTS_RULES (JSON: the
                         service's own rules, checked first)
Tracing is on when OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set.
The service starts even while Temporal is down: /healthz says 503 until it is reachable.`,
  async run(argv, { out, err, interrupted }) {
    const { values, positionals } = parse(argv, {
      team: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      'metrics-port': { type: 'string' },
      'task-queue': { type: 'string', default: DEFAULT_TASK_QUEUE },
      'dataset-dir': { type: 'string' },
    });
    const datasetDir = values['dataset-dir'] ?? (process.env.BATON_DATASET_DIR || undefined);
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    const port = integerOption('port', values.port ?? process.env.PORT, 0, 65535) ?? 8080;
    const host = values.host ?? (process.env.BATON_HOST || '127.0.0.1');
    const metricsPort = integerOption(
      'metrics-port',
      values['metrics-port'] ?? (process.env.BATON_METRICS_PORT || undefined),
      0,
      65535,
    );
    const maxBodyBytes = wholeNumberFromEnv('BATON_MAX_BODY_BYTES');
    const metricsToken = process.env.BATON_METRICS_TOKEN || undefined;
    const startsPerMinute = wholeNumberFromEnv('BATON_STARTS_PER_MINUTE');
    const auth = authOptionsFromEnv();
    const kid = process.env.BATON_SERVICE_KID || undefined;
    const signer = process.env.BATON_SERVICE_KEY
      ? decisionSignerFromFile(process.env.BATON_SERVICE_KEY, kid ? { kid } : {})
      : undefined;
    if (!auth)
      throw new UsageError(
        'no tokens: set BATON_TOKENS (JSON [{"token":"…","identity":"alice","roles":["approver"]}]), BATON_TOKENS_FILE or BATON_JWKS_URL',
      );
    const mod = values.team ? loadTeamModule(values.team) : undefined;
    const taskQueue = values['task-queue'];
    const tracingOptions = tracingOptionsFromEnv();
    const tracing = tracingOptions
      ? new BatonTracing({ serviceName: process.env.OTEL_SERVICE_NAME ?? 'baton-service', ...tracingOptions })
      : undefined;
    const config = temporalConfig();
    // Lazy: the service answers (503 while Temporal is down) instead of refusing to start.
    const connection = Connection.lazy({ ...config.connectionOptions, connectTimeout: '5 seconds' });
    const client = new Client({
      connection,
      namespace: config.namespace,
      dataConverter: batonDataConverter(),
      ...(tracing ? { interceptors: tracing.clientInterceptors() } : {}),
    });
    const baton = new Baton({ client, taskQueue });
    void ensureSearchAttributes(connection, config.namespace).catch((e: Error) =>
      err(`warning: could not check baton's search attributes: ${e.message}`),
    );
    collectDefaultMetrics({ register: globalRegistry });
    const service = await serveBaton({
      baton,
      auth,
      port,
      host,
      metrics: globalRegistry,
      ...(metricsPort !== undefined ? { metricsPort } : {}),
      ...(metricsToken ? { metricsToken } : {}),
      ...(maxBodyBytes !== undefined ? { maxBodyBytes } : {}),
      ...(mod ? { agents: mod.team.ids, a2a: { team: mod.team } } : {}),
      ...(startsPerMinute ? { rateLimit: { startsPerMinute } } : {}),
      ...(tracing ? { tracing } : {}),
      ...(signer ? { signer } : {}),
      ...(datasetDir ? { datasets: { dir: datasetDir } } : {}),
      ...optionalNotifications(),
      ...optionalCloudEvents(mod?.team),
      log: (message, e) => err(`baton serve: ${message}: ${e instanceof Error ? e.message : String(e ?? '')}`),
    });
    let worker: Worker | undefined;
    if (mod) {
      const native = await NativeConnection.connect(config.connectionOptions);
      worker = await createWorker({
        team: mod.team,
        hooks: mod.hooks,
        connection: native,
        namespace: config.namespace,
        taskQueue,
        metrics: { registry: globalRegistry },
        ...(tracing ? { tracing } : {}),
      });
    }
    out(
      `baton serve: ${service.url} (approvals page /, API /v1, /openapi.json, ${service.metricsUrl ?? '/metrics'}) on task queue "${taskQueue}" at ${config.connectionOptions.address}`,
    );
    if (mod) out(`baton serve: agents ${mod.team.ids.join(', ')} served in this process`);
    const running = worker?.run();
    const signal = await Promise.race([interrupted, ...(running ? [running.then(() => undefined)] : [])]);
    err(`baton serve: ${signal ?? 'worker stopped'}: shutting down`);
    if (worker?.getState() === 'RUNNING') worker.shutdown();
    await Promise.all([service.close(), running?.catch(() => undefined), tracing?.shutdown()]);
    return 0;
  },
};

function wholeNumberFromEnv(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  if (!/^[0-9]+$/.test(raw) || !Number.isSafeInteger(Number(raw)) || Number(raw) < 1)
    throw new UsageError(`${name} must be a whole number of 1 or more, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

/** `POST /events`, when the environment gives its secret: the team's rules, and the service's own from BATON_EVENTS_RULES. */
function optionalCloudEvents(team: { readonly events: readonly EventRule[] } | undefined): {
  cloudEvents?: CloudEventOptions;
} {
  const secret = process.env.BATON_EVENTS_SECRET;
  if (!secret) return {};
  let rules: CloudEventRule[] = [];
  if (process.env.BATON_EVENTS_RULES) {
    try {
      rules = JSON.parse(process.env.BATON_EVENTS_RULES) as CloudEventRule[];
    } catch {
      throw new UsageError(
        'BATON_EVENTS_RULES must be JSON: [{"type": "com.shop.order.damaged", "start": "intake"}, …]',
      );
    }
  }
  return { cloudEvents: { secret, rules, ...(team ? { team } : {}) } };
}

/** Decisions from notifications, when the environment configures them. */
function optionalNotifications() {
  const notifications = notificationServiceOptionsFromEnv();
  return notifications ? { notifications } : {};
}
