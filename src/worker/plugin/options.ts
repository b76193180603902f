/**
 * What {@link BatonPlugin} (`index.ts`) is built with: the team, its hooks, providers and MCP
 * servers, the codec, streams, prices and how the worker registers its team version.
 */
import type { BatonHooks } from '../../agents/hooks';
import type { Team } from '../../agents/team';
import type { PriceTable } from '../../common/economics/prices';
import type { McpWorkerOptions } from '../../mcp/tools';
import type { ModelProviders } from '../../models/provider';
import type { PayloadCodecOptions } from '../../payloads/keys';
import type { StreamTransport } from '../../streams/types';
import type { WorkerTelemetryOptions } from '../telemetry';
import type { TeamRegistryMode } from './teamRegistry';

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
