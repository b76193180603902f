/**
 * baton's worker: {@link createWorker} serves a team's agents (workflows, model and tool
 * activities) on a task queue — `import { createWorker } from 'baton-agents/worker'`.
 * @packageDocumentation
 * @module baton-agents/worker
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client, type Connection } from '@temporalio/client';
import {
  bundleWorkflowCode,
  DefaultLogger,
  NativeConnection,
  Worker,
  type WorkerOptions,
  type WorkflowBundleOption,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { createActivities } from '../../activities';
import type { BatonHooks } from '../agents/hooks';
import type { Team } from '../agents/team';
import { connectionFailure, TemporalConnectionError, temporalConfig, type TemporalConfigOptions } from '../client/connect';
import { TeamValidationError } from '../common/errors';
import { BATON_SEARCH_ATTRIBUTES, DEFAULT_TASK_QUEUE } from '../common/messages';
import type { ModelProviders } from '../models/provider';
import { batonDataConverter } from '../payloads/codec';
import { checkMcpWorkerOptions, type McpWorkerOptions } from '../mcp/tools';
import { connectTeamMcpServers, withMcpServers } from '../mcp/worker';
import { loggingDecryptionFailures } from './codecLog';
import { workerTelemetry, type WorkerTelemetryOptions } from './telemetry';
import { codecOptionsFromEnv, type PayloadCodecOptions } from '../payloads/keys';
import { BatonMetrics } from './telemetry/metrics';
import { deploymentFromEnv, hasTeamAttribute, workerDeploymentOptions, type WorkerDeployment } from './deployment';

export { DEPLOYMENT_ENV, deploymentFromEnv, type WorkerDeployment } from './deployment';

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
   * Activities this worker serves beside baton's, by name (an eval's worker serves its own this
   * way). A name of baton's own is refused.
   */
  activities?: Record<string, (...args: never[]) => Promise<unknown>>;
  /** Worker tuning passed to Temporal's `Worker.create` (pollers, cache size, concurrency). */
  worker?: Partial<Omit<WorkerOptions, 'connection' | 'namespace' | 'taskQueue' | 'activities' | 'workflowBundle' | 'workflowsPath'>>;
}

/** The workflow entry point: compiled JavaScript in the package, TypeScript in baton's own checkout. */
export const WORKFLOWS_PATH = [path.resolve(__dirname, '../../workflows/index.js'), path.resolve(__dirname, '../../workflows/index.ts')].find((f) => fs.existsSync(f))!;

/** The workflow bundle the package ships, built with the `@temporalio/workflow` version it names. */
const PREBUILT = { code: path.resolve(__dirname, '../../workflow-bundle.js'), meta: path.resolve(__dirname, '../../workflow-bundle.json') };

const bundles = new Map<string, Promise<WorkflowBundleWithSourceMap>>();

/**
 * baton's workflow code for a worker: the prebuilt bundle when the package has one for the
 * installed `@temporalio/workflow`, else bundled here (once per process, set of interceptors and
 * failure converter; an encrypting deployment's failure converter must be in the bundle).
 */
export async function workflowBundle(options: { interceptorModules?: string[]; failureConverterPath?: string } = {}): Promise<WorkflowBundleOption> {
  const modules = options.interceptorModules ?? [];
  const failureConverterPath = options.failureConverterPath;
  if (modules.length === 0 && !failureConverterPath && prebuiltMatches()) return { codePath: PREBUILT.code };
  const key = [...modules, failureConverterPath ?? ''].join('\n');
  let bundle = bundles.get(key);
  if (!bundle) {
    bundle = bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, workflowInterceptorModules: modules, failureConverterPath, logger: new DefaultLogger('WARN') });
    bundles.set(key, bundle);
  }
  return bundle;
}

function prebuiltMatches(): boolean {
  if (!fs.existsSync(PREBUILT.code) || !fs.existsSync(PREBUILT.meta)) return false;
  const built = (JSON.parse(fs.readFileSync(PREBUILT.meta, 'utf8')) as Record<string, string>)['@temporalio/workflow'];
  return built === (require('@temporalio/workflow/package.json') as { version: string }).version;
}

/**
 * A worker that runs baton's workflows and activities for `team`. Call `run()` on it.
 * @example
 * const worker = await createWorker({ team });
 * await worker.run();
 */
export async function createWorker(options: CreateWorkerOptions): Promise<Worker> {
  const team = options.team;
  team.spec(); // an empty or broken team fails here, before polling
  checkProviders(team, options.providers ?? {});
  checkMcpWorkerOptions(options.mcp ?? {}); // before connecting, whether or not an agent uses an MCP server
  const config = temporalConfig(options.temporal);
  const connection = options.connection ?? (await connectWorker(config.connectionOptions));
  const telemetry = await workerTelemetry(options);
  const dataConverter = options.worker?.dataConverter ?? loggingDecryptionFailures(batonDataConverter({ ...(options.codec ?? codecOptionsFromEnv()), ...(options.compress ? { compress: true } : {}) }));
  const deployment = options.deployment === false ? undefined : (options.deployment ?? deploymentFromEnv());
  const versioning = deployment ? { workerDeploymentOptions: workerDeploymentOptions(deployment) } : {};
  const namespace = options.namespace ?? config.namespace;
  const teamAttribute = await hasTeamAttribute(connection, namespace);
  const mcp = await connectTeamMcpServers(team, options.mcp);
  if (telemetry.registry) {
    const version = team.spec({ mcpTools: mcp?.specs }).version!;
    BatonMetrics.in(telemetry.registry).teamInfo.set({ team: version.id, hash: version.hash, deployment: deployment ? `${deployment.name}.${deployment.buildId}` : '' }, 1);
  }
  return withMcpServers(mcp, async () => Worker.create({
    ...versioning,
    ...options.worker,
    ...telemetry.workerOptions(options.worker),
    connection,
    namespace,
    taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
    workflowBundle: await workflowBundle({ interceptorModules: telemetry.interceptorModules(options.workflowInterceptorModules), failureConverterPath: dataConverter.failureConverterPath }),
    activities: withExtraActivities(createActivities({ team, hooks: options.hooks, providers: options.providers, mcp, teamAttribute, client: new Client({ connection, namespace }) }), options.activities),
    dataConverter,
  }));
}

/** baton's activities and the application's own, whose names must not clash with baton's. */
function withExtraActivities<A extends object>(baton: A, extra: CreateWorkerOptions['activities']): A {
  if (!extra) return baton;
  const clash = Object.keys(extra).filter((name) => name in baton);
  if (clash.length > 0) throw new TeamValidationError(clash.map((name) => `activity "${name}" is one of baton's own; give yours another name`));
  return { ...baton, ...extra };
}

/** A worker's connection, or a {@link TemporalConnectionError} that says what to do when nothing answers. */
async function connectWorker(options: ReturnType<typeof temporalConfig>['connectionOptions']): Promise<NativeConnection> {
  try {
    return await NativeConnection.connect(options);
  } catch (err) {
    throw Object.assign(new TemporalConnectionError(options.address ?? 'localhost:7233', connectionFailure(err)), { cause: err });
  }
}

/** Every agent's model provider must be one this worker has: a missing one fails here, not mid-chain. */
function checkProviders(team: Team, providers: ModelProviders): void {
  const known = new Set(['openai', 'scripted', ...Object.keys(providers)]);
  const problems = team.agents
    .filter((a) => !known.has(a.model.provider))
    .map((a) => `agent "${a.id}" uses model provider "${a.model.provider}", which this worker does not have (it has ${[...known].join(', ')}); pass createWorker({ providers: { ${a.model.provider}: … } })`);
  if (problems.length > 0) throw new TeamValidationError(problems);
}

/**
 * Register baton's search attributes in a namespace when they are missing (a dev server started
 * by baton already has them). Needs operator rights on a cluster.
 */
export async function ensureSearchAttributes(connection: Connection, namespace = 'default'): Promise<string[]> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const known = new Set(Object.keys(existing.customAttributes ?? {}));
  const missing = BATON_SEARCH_ATTRIBUTES.filter((k) => !known.has(k.name));
  if (missing.length === 0) return [];
  const typeOf = { KEYWORD: 2, INT: 3 } as const;
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(missing.map((k) => [k.name, typeOf[k.type as keyof typeof typeOf]])),
  });
  return missing.map((k) => k.name);
}
