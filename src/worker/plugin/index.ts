/**
 * baton as a Temporal plugin: {@link BatonPlugin} adds baton's workflows, activities, data
 * converter and telemetry to a Worker and a Client the application builds itself, so a service that
 * already runs a worker with its own workflows serves baton's chains from it.
 */
import type {
  ClientInterceptors,
  ClientOptions,
  ConnectionOptions,
  WorkflowClientInterceptor,
} from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { SimplePlugin, type SimplePluginOptions } from '@temporalio/plugin';
import type {
  BundleOptions,
  NativeConnectionOptions,
  ReplayWorkerOptions,
  Worker,
  WorkerOptions,
} from '@temporalio/worker';
import { registerTeam, type TeamRegistryMode } from './teamRegistry';
import { createActivities } from '../../../activities';
import type { BatonHooks } from '../../agents/hooks';
import type { Team } from '../../agents/team';
import { TeamValidationError, UserError } from '../../common/errors';
import { checkMcpWorkerOptions, type McpTools, type McpWorkerOptions } from '../../mcp/tools';
import type { TeamSpec } from '../../common/team';
import { AI_SDK_PROVIDER, aiSdkProblems } from '../../models/aiSdk';
import type { ModelProviders } from '../../models/provider';
import { batonDataConverter } from '../../payloads/codec';
import { codecOptionsFromEnv, type PayloadCodecOptions } from '../../payloads/keys';
import { PRELOAD_MODULES, withBatonInterceptors, workflowBundle } from '../bundle';
import { loggingDecryptionFailures } from '../codecLog';
import { optionalAttributes } from '../deployment';
import { chainPayloadLimit } from '../payloadLimit';
import { resolveWorkerTelemetry, type WorkerTelemetryOptions } from '../telemetry';
import { BatonMetrics } from '../telemetry/metrics';
import { mergeDataConverter } from './converter';
import { McpLease } from './mcp';
import { KeySetResolver } from '../keySets';
import { checkPrices, sharedEconomicsClient } from './economics';
import type { PriceTable } from '../../common/economics/prices';
import { streamsFromEnv } from '../../streams/env';
import type { StreamTransport } from '../../streams/types';
import { combinedWorkflowsPath, isCombined, withWorkflowPackages } from './workflows';

export { BATON_WORKFLOW_TYPES } from './workflows';

/** Options of {@link BatonPlugin}. */
export interface BatonPluginOptions extends WorkerTelemetryOptions {
  /** The agents the worker serves. */
  team: Team;
  /** `agent_handoff` listeners, run after each handoff in the `runHandoffHooks` activity (at least once). */
  hooks?: BatonHooks;
  /** Replace or add model providers (by the spec's `provider` field). */
  providers?: ModelProviders;
  /** The agents' MCP servers: connected when the worker is created, closed when it stops (see `createWorker`'s `mcp`). */
  mcp?: McpWorkerOptions;
  /**
   * How payloads are compressed, encrypted and claim-checked: the same for the worker and every
   * client. `false` leaves the data converter as the application has it (baton's chains are then
   * encoded with the application's codecs). Codec options beside the application's own codecs are
   * refused, naming both ways out.
   * @default the environment's (`BATON_ENCRYPTION_KEYS`, `BATON_COMPRESS`, `BATON_CLAIM_CHECK_DIR`, see `codecOptionsFromEnv`)
   */
  codec?: PayloadCodecOptions | false;
  /** Workflow interceptor modules of baton's own to bundle besides the telemetry's. */
  workflowInterceptorModules?: string[];
  /**
   * Where model calls publish their text as it forms (see docs/streaming.md): `inProcessStreams()`
   * for callers in this process, `new RedisStreams({url})` for callers elsewhere; `false` publishes none.
   * @default Redis Streams at `BATON_STREAMS_URL` when set, else this process's in-process transport
   */
  streams?: StreamTransport | false;
  /** A label for the `baton_team_info` metric when the worker is a Worker Deployment version: `<name>.<buildId>`. @default from the worker's `workerDeploymentOptions` */
  deploymentLabel?: string;
  /** Prices by model for the worker's chains, over the team's (see `createWorker`'s `prices` and docs/economics.md). */
  prices?: PriceTable;
  /**
   * The worker registers its team version on its task queue, and while a newer version of its team
   * is registered there it starts no new chains (docs/chains.md). `'promote'` registers its version
   * as the newest (a deliberate rollback); `false` keeps it out of the registry (it then starts chains
   * whatever is registered). @default "register"
   */
  teamRegistry?: TeamRegistryMode;
}

/** The activity names baton registers; an application activity of one of these names is refused. */
const activityNames = (activities: object) => Object.keys(activities);

/**
 * `SimplePlugin` with its worker hooks typed as Temporal's `WorkerPlugin` types them, which may
 * answer with a promise: baton connects the team's MCP servers and serves its metrics before the
 * worker is created.
 */
interface SimplePluginWithAsyncHooks {
  readonly name: string;
  /** A client's options with the plugin's added. */
  configureClient(options: Omit<ClientOptions, 'plugins'>): Omit<ClientOptions, 'plugins'>;
  /** A worker's options with the plugin's added. */
  configureWorker(options: WorkerOptions): WorkerOptions | Promise<WorkerOptions>;
  /** A replay worker's options with the plugin's added. */
  configureReplayWorker(options: ReplayWorkerOptions): ReplayWorkerOptions | Promise<ReplayWorkerOptions>;
  /** Runs the worker through `next`, with what the plugin does around it. */
  runWorker(worker: Worker, next: (w: Worker) => Promise<void>): Promise<void>;
  /** A workflow bundle's options with the plugin's added. */
  configureBundler(options: BundleOptions): BundleOptions;
  /** A client connection's options with the plugin's added. */
  configureConnection(options: ConnectionOptions): ConnectionOptions;
  /** A worker connection's options with the plugin's added. */
  configureNativeConnection(options: NativeConnectionOptions): NativeConnectionOptions;
}
/** The class of {@link SimplePluginWithAsyncHooks}. */
interface AsyncSimplePluginClass {
  /** A plugin that adds what `options` name. */
  new (options: SimplePluginOptions): SimplePluginWithAsyncHooks;
}
/** Temporal's `SimplePlugin`, typed with {@link SimplePluginWithAsyncHooks}. */
const AsyncSimplePlugin = SimplePlugin as unknown as AsyncSimplePluginClass;

/**
 * baton in your own Worker and Client: its workflows (`handoffRun`, `conversation`) beside yours,
 * its activities, its data converter (compression, encryption, claim check) and its metrics and
 * tracing. Start chains with `new Baton({ client, taskQueue })` on the worker's task queue.
 * @example
 * const baton = new BatonPlugin({ team });
 * const worker = await Worker.create({ connection, taskQueue: 'orders', workflowsPath: require.resolve('./workflows'), activities, plugins: [baton] });
 * const client = new Client({ connection: clientConnection, plugins: [baton] });
 * await new Baton({ client, taskQueue: 'orders' }).run('triage', 'Where is order 42?');
 */
export class BatonPlugin extends AsyncSimplePlugin {
  private readonly baton: Required<Pick<BatonPluginOptions, 'team'>> & BatonPluginOptions;
  private readonly telemetry: ReturnType<typeof resolveWorkerTelemetry>;
  private readonly converter?: { codec: PayloadCodecOptions; dataConverter: DataConverter };
  private readonly mcp: McpLease;
  /** The team's snapshot without MCP tools, built once: the check of the team and, with no MCP servers, what chains record. */
  private readonly teamSpec: TeamSpec;
  /** The snapshot with the tools of the MCP connections last configured, built once per connection. */
  private mcpSpec?: { tools: McpTools; spec: TeamSpec };
  /** The team's published key sets (`jwks`), fetched when a worker is configured and again as new chains need them. */
  private readonly keySets: KeySetResolver;

  constructor(options: BatonPluginOptions) {
    // An empty or broken team fails here, before anything connects.
    const teamSpec = options.team.spec(snapshotOptions(options));
    checkPrices(teamSpec, options.prices);
    checkProviders(options.team, options.providers ?? {});
    checkMcpWorkerOptions(options.mcp ?? {});
    const codec = options.codec === false ? undefined : (options.codec ?? codecOptionsFromEnv());
    const converter = codec
      ? { codec, dataConverter: loggingDecryptionFailures(batonDataConverter(codec)) }
      : undefined;
    const telemetry = resolveWorkerTelemetry(options);
    const tracing = telemetry.tracing?.clientInterceptors();
    super({
      name: 'baton',
      ...(converter
        ? {
            dataConverter: (existing?: DataConverter) =>
              mergeDataConverter(existing, converter.dataConverter, converter.codec),
          }
        : {}),
      ...(tracing
        ? { clientInterceptors: (existing?: ClientInterceptors) => withTracing(existing, tracing.workflow) }
        : {}),
    });
    this.baton = options;
    this.telemetry = telemetry;
    this.converter = converter;
    this.mcp = new McpLease(options.team, options.mcp);
    this.teamSpec = teamSpec;
    this.keySets = new KeySetResolver(teamSpec.jwks ?? []);
  }

  /** The worker's options with baton added: activities, workflows, data converter, interceptors and sinks. Connects the team's MCP servers. */
  override async configureWorker(options: WorkerOptions): Promise<WorkerOptions> {
    const configured = await super.configureWorker(options);
    await this.telemetry.serve();
    const mcp = await this.mcp.acquire();
    try {
      const namespace = options.namespace ?? 'default';
      const attributes = options.connection
        ? await optionalAttributes(options.connection, namespace)
        : { team: false, approvals: false };
      const payloadLimit = await chainPayloadLimit(
        options.connection,
        namespace,
        this.ownConverter(configured) ? undefined : this.converter?.codec,
      );
      const client = sharedEconomicsClient(options.connection, namespace, configured.dataConverter);
      const teamSpec = this.snapshot(mcp);
      await this.keySets.start();
      const activities = createActivities({
        ...(teamSpec.jwks ? { keySets: () => this.keySets.records() } : {}),
        team: this.baton.team,
        teamSpec,
        hooks: this.baton.hooks,
        providers: this.baton.providers,
        mcp,
        teamAttribute: attributes.team,
        approvalAttributes: attributes.approvals,
        payloadLimit,
        prices: this.baton.prices,
        ...(client ? { client } : {}),
        ...(this.baton.streams === false ? {} : { streams: this.baton.streams ?? streamsFromEnv() }),
        ...this.heartbeats(),
      });
      const own = Object.keys(configured.activities ?? {});
      const clash = activityNames(activities).filter((name) => own.includes(name));
      if (clash.length > 0)
        throw new UserError(
          `the worker's activities ${clash.map((n) => `"${n}"`).join(', ')} have the names of baton's activities; rename yours (a worker runs one activity per name)`,
        );
      const mode = this.baton.teamRegistry ?? 'register';
      if (client && mode !== false)
        await registerTeam(client(), options.taskQueue, this.baton.team.spec({ mcpTools: mcp?.specs }).version!, mode);
      if (this.telemetry.registry) {
        const version = teamSpec.version!;
        const deployment = this.baton.deploymentLabel ?? deploymentLabel(options);
        BatonMetrics.in(this.telemetry.registry).teamInfo.set({ team: version.id, hash: version.hash, deployment }, 1);
      }
      const telemetry = this.telemetry.workerOptions(configured);
      return {
        ...configured,
        ...(await this.workflows(configured)),
        activities: { ...configured.activities, ...activities },
        interceptors: { ...configured.interceptors, activity: telemetry.interceptors?.activity },
        sinks: telemetry.sinks,
      };
    } catch (err) {
      await this.mcp.release();
      throw err;
    }
  }

  /** The activities' heartbeat hook: each heartbeat sent is an action the metrics count. */
  private heartbeats(): { onHeartbeat?: () => void } {
    const registry = this.telemetry.registry;
    if (!registry) return {};
    const actions = BatonMetrics.in(registry).actions;
    return { onHeartbeat: () => actions.one('heartbeat') };
  }

  /** A replay worker's options with baton's workflows and data converter. */
  override async configureReplayWorker(options: ReplayWorkerOptions): Promise<ReplayWorkerOptions> {
    const configured = await super.configureReplayWorker(options);
    return { ...configured, ...(await this.workflows(configured)) };
  }

  /**
   * Bundle options with baton's workflows beside the application's (`workflowsPath`), the telemetry's
   * workflow interceptors and, with encryption, baton's failure converter. Use it when you bundle
   * your workflows yourself: `bundleWorkflowCode({ workflowsPath, plugins: [batonPlugin] })`.
   */
  override configureBundler(options: BundleOptions): BundleOptions {
    const configured = super.configureBundler(options);
    const failureConverterPath = this.converter?.dataConverter.failureConverterPath;
    if (
      failureConverterPath &&
      configured.failureConverterPath &&
      configured.failureConverterPath !== failureConverterPath
    ) {
      throw new UserError(
        `the bundle has a failure converter of its own (${configured.failureConverterPath}), and baton's encryption needs its own (${failureConverterPath}): keep one`,
      );
    }
    return {
      ...configured,
      workflowsPath: isCombined(configured.workflowsPath)
        ? configured.workflowsPath
        : combinedWorkflowsPath(configured.workflowsPath),
      // baton's own first: the outermost interceptor takes baton's signals without the SDK's per-signal promises.
      workflowInterceptorModules: withBatonInterceptors([
        ...(configured.workflowInterceptorModules ?? []),
        ...this.interceptorModules(),
      ]),
      // baton's modules are shared by the worker's workflows; the application's stay per workflow unless it preloads them.
      preloadModules: [...new Set([...(configured.preloadModules ?? []), ...PRELOAD_MODULES])],
      webpackConfigHook: withWorkflowPackages(configured.webpackConfigHook),
      ...(failureConverterPath ? { failureConverterPath } : {}),
    };
  }

  /** Stop a worker's MCP connections with it. */
  override async runWorker(worker: Worker, next: (w: Worker) => Promise<void>): Promise<void> {
    try {
      await super.runWorker(worker, next);
    } finally {
      await this.mcp.release();
    }
  }

  /** Close what `configureWorker` opened when the worker it configured will not run (its creation failed). */
  async close(): Promise<void> {
    await this.mcp.release();
  }

  /** The team's snapshot with the tools `mcp` lists, as every chain of a worker with these connections records it. */
  private snapshot(mcp: McpTools | undefined): TeamSpec {
    if (!mcp) return this.teamSpec;
    if (this.mcpSpec?.tools !== mcp)
      this.mcpSpec = {
        tools: mcp,
        spec: this.baton.team.spec({ ...snapshotOptions(this.baton), mcpTools: mcp.specs }),
      };
    return this.mcpSpec.spec;
  }

  /** Whether the worker encodes with a data converter of the application's rather than baton's. */
  private ownConverter(options: WorkerOptions): boolean {
    return (
      !this.converter || (options.dataConverter?.payloadCodecs ?? []) !== this.converter.dataConverter.payloadCodecs
    );
  }

  /** The workflow interceptor modules baton bundles: its own, then the telemetry's. */
  private interceptorModules(): string[] {
    return this.telemetry.interceptorModules(this.baton.workflowInterceptorModules);
  }

  /**
   * Where the worker's workflows come from: the application's `workflowsPath`, to which the bundler
   * adds baton's (see {@link configureBundler}); the application's own `workflowBundle`, which must
   * have been bundled with this plugin; or, with neither, baton's workflows alone.
   */
  private async workflows(
    options: Pick<WorkerOptions, 'workflowsPath' | 'workflowBundle' | 'bundlerOptions'>,
  ): Promise<Pick<WorkerOptions, 'workflowBundle' | 'bundlerOptions'>> {
    if (options.workflowBundle || options.workflowsPath) return {};
    const failureConverterPath = this.converter?.dataConverter.failureConverterPath;
    return {
      workflowBundle: await workflowBundle({ interceptorModules: this.interceptorModules(), failureConverterPath }),
    };
  }
}

/** What the team's snapshot depends on besides the team: whether handoff listeners run, and the worker's prices. */
function snapshotOptions(options: BatonPluginOptions): { hasHandoffListeners: boolean; prices?: PriceTable } {
  return {
    hasHandoffListeners: (options.hooks?.agent_handoff ?? []).length > 0,
    ...(options.prices ? { prices: options.prices } : {}),
  };
}

/** The client's interceptors with baton's tracing after its own. */
function withTracing(
  existing: ClientInterceptors | undefined,
  tracing: WorkflowClientInterceptor[],
): ClientInterceptors {
  const own = existing?.workflow;
  if (own !== undefined && !Array.isArray(own))
    throw new UserError(
      "the client's workflow interceptors are an object of factories (the old form); give them as a list to add baton's tracing to them",
    );
  return { ...existing, workflow: [...(own ?? []), ...tracing] };
}

/** `<name>.<buildId>` of a worker that is a Worker Deployment version, else empty. */
function deploymentLabel(options: WorkerOptions): string {
  const version = options.workerDeploymentOptions?.version;
  return version ? `${version.deploymentName}.${version.buildId}` : '';
}

/** Every agent's model provider must be one this worker has: a missing one fails here, not mid-chain. */
export function checkProviders(team: Team, providers: ModelProviders): void {
  const known = new Set(['openai', 'scripted', AI_SDK_PROVIDER, ...Object.keys(providers)]);
  const problems = team.agents
    .filter((a) => !known.has(a.model.provider))
    .map(
      (a) =>
        `agent "${a.id}" uses model provider "${a.model.provider}", which this worker does not have (it has ${[...known].join(', ')}); pass createWorker({ providers: { ${a.model.provider}: … } }), or give the agent an AI SDK model with aiSdk(model)`,
    );
  problems.push(...aiSdkProblems(team.agents, providers));
  if (problems.length > 0) throw new TeamValidationError(problems);
}
