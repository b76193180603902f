/**
 * Temporal's `SimplePlugin` typed as its worker hooks are called: they may answer with a promise,
 * which baton's plugin needs to connect MCP servers and serve metrics before a worker is created.
 */
import type { ClientOptions, ConnectionOptions } from '@temporalio/client';
import { SimplePlugin, type SimplePluginOptions } from '@temporalio/plugin';
import type {
  BundleOptions,
  NativeConnectionOptions,
  ReplayWorkerOptions,
  Worker,
  WorkerOptions,
} from '@temporalio/worker';

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
export const AsyncSimplePlugin = SimplePlugin as unknown as AsyncSimplePluginClass;
