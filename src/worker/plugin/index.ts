/**
 * baton as a Temporal plugin: {@link BatonPlugin} adds baton's workflows, activities, data
 * converter and telemetry to a Worker and a Client the application builds itself, so a service that
 * already runs a worker with its own workflows serves baton's chains from it.
 */
import type { ClientInterceptors, WorkflowClientInterceptor } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import type { ReplayWorkerOptions, BundleOptions, Worker, WorkerOptions } from '@temporalio/worker';
import { registerTeam } from './teamRegistry';
import { createActivities } from '../../../activities';
import { UserError } from '../../common/errors';
import { checkMcpWorkerOptions, type McpTools } from '../../mcp/tools';
import type { TeamSpec } from '../../common/team';
import { batonDataConverter } from '../../payloads/codec';
import { codecOptionsFromEnv, type PayloadCodecOptions } from '../../payloads/keys';
import { PRELOAD_MODULES, withBatonInterceptors, workflowBundle } from '../bundle';
import { loggingDecryptionFailures } from '../codecLog';
import { optionalAttributes } from '../deployment';
import { chainPayloadLimit } from '../payloadLimit';
import { resolveWorkerTelemetry } from '../telemetry';
import { BatonMetrics } from '../telemetry/metrics';
import { AsyncSimplePlugin } from './asyncPlugin';
import { mergeDataConverter } from './converter';
import { McpLease } from './mcp';
import { KeySetResolver } from '../keySets';
import { checkPrices, sharedEconomicsClient } from './economics';
import type { PriceTable } from '../../common/economics/prices';
import { streamsFromEnv } from '../../streams/env';
import type { BatonPluginOptions } from './options';
import { checkProviders } from './providers';
import { combinedWorkflowsPath, isCombined, withWorkflowPackages } from './workflows';

export { BATON_WORKFLOW_TYPES } from './workflows';

/** The activity names baton registers; an application activity of one of these names is refused. */
const activityNames = (activities: object) => Object.keys(activities);

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
