/**
 * baton's worker: {@link createWorker} serves a team's agents (workflows, model and tool
 * activities) on a task queue — `import { createWorker } from 'baton-agents/worker'`.
 * @packageDocumentation
 * @module baton-agents/worker
 */
import type { Connection } from '@temporalio/client';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { PriceTable } from '../common/economics/prices';
import type { BatonHooks } from '../agents/hooks';
import type { Team } from '../agents/team';
import {
  connectionFailure,
  TemporalConnectionError,
  temporalConfig,
  type TemporalConfigOptions,
} from '../client/connect';
import { BATON_SEARCH_ATTRIBUTES, DEFAULT_TASK_QUEUE } from '../common/messages';
import type { ModelProviders } from '../models/provider';
import type { McpWorkerOptions } from '../mcp/tools';
import { BatonPlugin } from './plugin';
import type { BatonPluginOptions } from './plugin/options';
import type { WorkerTelemetryOptions } from './telemetry';
import { codecOptionsFromEnv, type PayloadCodecOptions } from '../payloads/keys';
import { deploymentFromEnv, workerDeploymentOptions, type WorkerDeployment } from './deployment';
import type { StreamTransport } from '../streams/types';

export { DEPLOYMENT_ENV, deploymentFromEnv, type WorkerDeployment } from './deployment';
export { workflowBundle, WORKFLOWS_PATH } from './bundle';
export {
  archiverWorkflowId,
  createArchiveWorker,
  startArchiver,
  type ArchiveWorkerOptions,
  type ArchiverSettings,
} from './archive';
export { BATON_WORKFLOW_TYPES, BatonPlugin } from './plugin';
export type { BatonPluginOptions } from './plugin/options';
export {
  BatonMetrics,
  BatonTracing,
  serveMetrics,
  tracingOptionsFromEnv,
  type TracingOptions,
  type WorkerMetricsOptions,
  type WorkerTelemetryOptions,
} from './telemetry';
export {
  checkHistories,
  historiesFromFiles,
  historiesFromServer,
  type HistorySource,
  type ReplayCheck,
} from './determinism';
export { KeySetError } from './keySets';

/** Options of {@link createWorker}. */
export interface CreateWorkerOptions extends WorkerTelemetryOptions {
  /** The agents this worker serves. */
  team: Team;
  /**
   * Your own connection. @default one made as Temporal's tools make it: the `temporal.toml` profile
   * and `TEMPORAL_ADDRESS`, `TEMPORAL_API_KEY`, `TEMPORAL_TLS_*` (see `temporalConfig`), else localhost:7233
   */
  connection?: NativeConnection;
  /** @default the profile's namespace or `TEMPORAL_NAMESPACE`, else "default" */
  namespace?: string;
  /** Which `temporal.toml` profile and file to read when baton makes the connection. */
  temporal?: TemporalConfigOptions;
  /** @default "baton" */
  taskQueue?: string;
  /** `agent_handoff` listeners, run after each handoff in the `runHandoffHooks` activity (at least once). */
  hooks?: BatonHooks;
  /** Replace or add model providers (by the spec's `provider` field). */
  providers?: ModelProviders;
  /**
   * The agents' MCP servers: the worker connects to each when it starts and lists its tools; a
   * server it cannot reach stops the start (`onUnavailable: 'fail'`) or is left out and logged
   * (`'skip'`). The connections close when the worker stops.
   * @example mcp: { onUnavailable: 'skip', connectTimeout: '5 seconds' }
   */
  mcp?: McpWorkerOptions;
  /**
   * How payloads (prompts, answers, tool arguments and results) are compressed and encrypted in
   * history. Clients, audits and replay checks need the same: `connectBaton({ codec })`, or
   * `new Client({ connection, dataConverter: batonDataConverter(codec) })`.
   * @default the environment's: `BATON_ENCRYPTION_KEYS` or `BATON_ENCRYPTION_KEY_FILE`, and `BATON_COMPRESS` (see `codecOptionsFromEnv`)
   */
  codec?: PayloadCodecOptions;
  /**
   * Gzip large payloads (conversations, tool results) in history: `codec` with `compress: true`.
   * @default false
   */
  compress?: boolean;
  /**
   * Workflow interceptor modules (e.g. `@temporalio/interceptors-opentelemetry`'s); with them the
   * worker bundles baton's workflows itself instead of loading the prebuilt bundle.
   */
  workflowInterceptorModules?: string[];
  /**
   * The Worker Deployment version this worker is (`{name, buildId}`): chains stay on the version they
   * started on, so this version's workers drain its chains while new chains start on the version set
   * current (`temporal worker deployment set-current-version`); conversations move to the current
   * version between turns. `false` runs outside any deployment whatever the environment says. See
   * docs/operating.md for a deploy end to end.
   * @default `BATON_DEPLOYMENT` and `BATON_BUILD_ID` when set; else none (every worker on the task queue takes any task)
   */
  deployment?: WorkerDeployment | false;
  /**
   * Prices by model for this worker's chains, over the team's `prices` (which win over the default
   * table); recorded with each chain's team snapshot. See docs/economics.md.
   * @example prices: { 'gpt-4o-mini': { input: 0.15, cachedInput: 0.075, output: 0.6 } }
   */
  prices?: PriceTable;
  /** Whether the worker registers its team on its task queue, and starts no new chains while a newer one is registered (see `BatonPluginOptions.teamRegistry`). @default "register" */
  teamRegistry?: BatonPluginOptions['teamRegistry'];
  /**
   * Where model calls publish their text as it forms (see docs/streaming.md): `inProcessStreams()`
   * for callers in this process, `new RedisStreams({url})` for callers elsewhere; `false` publishes none.
   * @default Redis Streams at `BATON_STREAMS_URL` when set, else this process's in-process transport
   */
  streams?: StreamTransport | false;
  /**
   * Activities this worker serves beside baton's, by name (an eval's worker serves its own this
   * way). A name of baton's own is refused.
   */
  activities?: Record<string, (...args: never[]) => Promise<unknown>>;
  /** Worker tuning passed to Temporal's `Worker.create` (pollers, cache size, concurrency). */
  worker?: Partial<
    Omit<WorkerOptions, 'connection' | 'namespace' | 'taskQueue' | 'activities' | 'workflowBundle' | 'workflowsPath'>
  >;
}

/**
 * A worker that runs baton's workflows and activities for `team`. Call `run()` on it.
 * @example
 * const worker = await createWorker({ team });
 * await worker.run();
 */
export async function createWorker(options: CreateWorkerOptions): Promise<Worker> {
  const deployment = options.deployment === false ? undefined : (options.deployment ?? deploymentFromEnv());
  // The team, its providers and the MCP options are checked here, before connecting.
  const plugin = new BatonPlugin({
    team: options.team,
    hooks: options.hooks,
    providers: options.providers,
    mcp: options.mcp,
    metrics: options.metrics,
    tracing: options.tracing,
    workflowInterceptorModules: options.workflowInterceptorModules,
    streams: options.streams,
    ...(options.prices ? { prices: options.prices } : {}),
    ...(options.teamRegistry !== undefined ? { teamRegistry: options.teamRegistry } : {}),
    // Your own data converter, as it is; else baton's codecs.
    codec: options.worker?.dataConverter
      ? false
      : { ...(options.codec ?? codecOptionsFromEnv()), ...(options.compress ? { compress: true } : {}) },
  });
  const config = temporalConfig(options.temporal);
  const connection = options.connection ?? (await connectWorker(config.connectionOptions));
  try {
    return await Worker.create({
      ...(deployment ? { workerDeploymentOptions: workerDeploymentOptions(deployment) } : {}),
      ...RECOVERY_OPTIONS,
      ...options.worker,
      connection,
      namespace: options.namespace ?? config.namespace,
      taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
      ...(options.activities ? { activities: options.activities } : {}),
      plugins: [plugin, ...(options.worker?.plugins ?? [])],
    });
  } catch (err) {
    await plugin.close();
    throw err;
  }
}

/**
 * How soon the work of a worker that died goes on elsewhere: a heartbeat a call sends is not held
 * back by the SDK for more than a second (baton times a call's heartbeats itself, as seldom as its
 * `heartbeatTimeout` allows: activities/heartbeat.ts), and a workflow cached on a dead worker moves
 * to another after 1 s on its sticky queue instead of Temporal's 10. Each can be set in `worker`;
 * see docs/operating.md for what they cost.
 */
const RECOVERY_OPTIONS = {
  maxHeartbeatThrottleInterval: '1 second',
  stickyQueueScheduleToStartTimeout: '1 second',
} as const;

/** A worker's connection, or a {@link TemporalConnectionError} that says what to do when nothing answers. */
async function connectWorker(
  options: ReturnType<typeof temporalConfig>['connectionOptions'],
): Promise<NativeConnection> {
  try {
    return await NativeConnection.connect(options);
  } catch (err) {
    throw Object.assign(new TemporalConnectionError(options.address ?? 'localhost:7233', connectionFailure(err)), {
      cause: err,
    });
  }
}

/** Temporal's IndexedValueType number of each type baton's search attributes have. */
export const INDEXED_VALUE_TYPE = { KEYWORD: 2, INT: 3, DATETIME: 6, KEYWORD_LIST: 7 } as const satisfies Record<
  (typeof BATON_SEARCH_ATTRIBUTES)[number]['type'],
  number
>;

/**
 * Register baton's search attributes in a namespace when they are missing (a dev server started
 * by baton already has them). Needs operator rights on a cluster.
 */
export async function ensureSearchAttributes(connection: Connection, namespace = 'default'): Promise<string[]> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const known = new Set(Object.keys(existing.customAttributes ?? {}));
  const missing = BATON_SEARCH_ATTRIBUTES.filter((k) => !known.has(k.name));
  if (missing.length === 0) return [];
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(missing.map((k) => [k.name, INDEXED_VALUE_TYPE[k.type]])),
  });
  return missing.map((k) => k.name);
}
