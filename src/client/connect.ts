/**
 * Connections the way every Temporal tool makes them: `@temporalio/envconfig` reads the profile
 * in `temporal.toml` (`TEMPORAL_CONFIG_FILE`, `TEMPORAL_PROFILE`) and the environment
 * (`TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`, `TEMPORAL_API_KEY`, `TEMPORAL_TLS_*`), so baton reaches
 * a local dev server, a TLS cluster or Temporal Cloud with no code.
 */
import net from 'node:net';
import { Client, Connection, type ConnectionOptions, type DataConverter } from '@temporalio/client';
import { loadClientConnectConfig, type ClientConnectConfig } from '@temporalio/envconfig';
import { UserError } from '../common/errors';
import { batonDataConverter } from '../payloads/codec';
import { HISTORY_RECEIVE_LIMIT } from '../payloads/historyPages';
import type { PayloadCodecOptions } from '../payloads/keys';
import { Baton } from './baton';
import { closeSafeRetryInterceptor } from './closeSafeRetry';

/** Where to connect: a profile and a config file, else the defaults Temporal's tools use. */
export interface TemporalConfigOptions {
  /** The `temporal.toml` profile. @default `TEMPORAL_PROFILE`, or "default" */
  profile?: string;
  /** The config file. @default `TEMPORAL_CONFIG_FILE`, or the platform's Temporal config path */
  configFile?: string;
}

/** The connection options and namespace the environment and `temporal.toml` describe. */
export function temporalConfig(options: TemporalConfigOptions = {}): ClientConnectConfig & { namespace: string } {
  const config = loadClientConnectConfig({
    ...(options.profile ? { profile: options.profile } : {}),
    ...(options.configFile ? { configSource: { path: options.configFile } } : {}),
  });
  const address = config.connectionOptions.address ?? 'localhost:7233';
  return { connectionOptions: { ...config.connectionOptions, address }, namespace: config.namespace ?? 'default' };
}

/** Options of {@link connectBaton}. */
export interface ConnectBatonOptions extends TemporalConfigOptions {
  /** @default "baton" */
  taskQueue?: string;
  /**
   * How the workers compress and encrypt payloads; the client, its audits and replays decode them the same way.
   * @default the environment's: `BATON_ENCRYPTION_KEYS` or `BATON_ENCRYPTION_KEY_FILE`, and `BATON_COMPRESS` (see `codecOptionsFromEnv`)
   */
  codec?: PayloadCodecOptions;
  /** A data converter of your own, instead of the one `codec` describes. */
  dataConverter?: DataConverter;
}

/**
 * A {@link Baton} client connected as the environment says (see {@link temporalConfig}).
 * @example
 * const baton = await connectBaton();      // TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, temporal.toml
 * const { output } = await baton.run('triage', 'Refund order 42');
 */
export async function connectBaton(options: ConnectBatonOptions = {}): Promise<Baton> {
  const { connectionOptions, namespace } = temporalConfig(options);
  const connection = await connectClient(connectionOptions);
  const dataConverter = options.dataConverter ?? batonDataConverter(options.codec);
  const client = new Client({ connection, namespace, dataConverter });
  return new Baton({ client, ...(options.taskQueue ? { taskQueue: options.taskQueue } : {}) });
}

/**
 * No Temporal server answered at `address`: the message says what to do (start one, or point
 * `TEMPORAL_ADDRESS` or a `temporal.toml` profile at one), as the `baton` command does.
 */
export class TemporalConnectionError extends UserError<{ address: string; reason: string }> {
  declare readonly address: string;
  declare readonly reason: string;
  constructor(address: string, reason: string) {
    super(
      `cannot reach a Temporal server at ${address} (${reason}). Start one with \`npx baton dev\` (or \`temporal server start-dev\`), ` +
        'or set TEMPORAL_ADDRESS (and TEMPORAL_API_KEY or TEMPORAL_TLS_* for a cluster that needs them, or a temporal.toml profile with TEMPORAL_PROFILE).',
      { address, reason },
    );
  }
}

/** Why a connection failed, in a few words: the OS's reason inside a gRPC transport error (`Connection refused`), else the error's own message. */
export function connectionFailure(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const os = /message: "([^"]+)"/.exec(text)?.[1] ?? /kind: (\w+)/.exec(text)?.[1];
  if (os) return os;
  const first = text.split('\n')[0]!.trim();
  return first.length > 200 ? `${first.slice(0, 199)}…` : first;
}

/**
 * A client connection, or a {@link TemporalConnectionError} when nothing answers at the address.
 * An address that refuses connections, or a host that does not resolve, is reported within about
 * a second, as a worker's connection reports it: gRPC's own channel would keep retrying it until
 * its connect timeout (10 s). Its calls are retried as the client retries them, and a retry due
 * after the connection was closed ends the call instead of throwing (./closeSafeRetry.ts).
 */
export async function connectClient(options: ConnectionOptions): Promise<Connection> {
  const address = options.address ?? 'localhost:7233';
  const refused = await refusedAt(address);
  if (refused) throw new TemporalConnectionError(address, refused);
  try {
    return await Connection.connect({
      ...options,
      channelArgs: { ...HISTORY_RECEIVE_LIMIT, ...options.channelArgs },
      interceptors: options.interceptors ?? [closeSafeRetryInterceptor()],
    });
  } catch (err) {
    throw Object.assign(new TemporalConnectionError(address, connectionFailure(err)), { cause: err });
  }
}

/** How long {@link refusedAt} waits for an answer before leaving the verdict to gRPC. */
const PROBE_MS = 1_000;
const REASONS: Record<string, string> = {
  ECONNREFUSED: 'Connection refused',
  ENOTFOUND: 'host not found',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EAI_AGAIN: 'host not found',
};

/**
 * Why nothing can answer at `host:port` (the OS refused the connection, or the host does not
 * resolve), or `undefined` when something accepts, the probe is slow (a far cluster: gRPC decides),
 * the address is not `host:port`, or a proxy in the environment carries gRPC's connections.
 */
async function refusedAt(address: string): Promise<string | undefined> {
  const m = /^(?:\[([^\]]+)\]|([^:/\s]+)):(\d+)$/.exec(address);
  if (!m || ['grpc_proxy', 'https_proxy', 'http_proxy'].some((v) => process.env[v] || process.env[v.toUpperCase()]))
    return undefined;
  const host = m[1] ?? m[2]!;
  return new Promise((resolve) => {
    const socket = net.connect({ host, port: Number(m[3]) });
    const done = (reason: string | undefined) => {
      socket.destroy();
      resolve(reason);
    };
    socket.setTimeout(PROBE_MS, () => done(undefined));
    socket.once('connect', () => done(undefined));
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code && REASONS[err.code]));
  });
}
