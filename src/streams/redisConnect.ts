/**
 * Connections of the Redis Streams transport, made with the official client (`@redis/client`,
 * node-redis): one server (`redis://`, `rediss://` for TLS, ACL user and password in the URL) or a
 * Redis Cluster (`createCluster`, given some of its nodes). The client reconnects by itself with
 * backoff; commands sent while it is away fail at once instead of waiting, so a model call's text
 * is given up (its answer still comes from history) rather than held.
 */
import type { ConnectionOptions } from 'node:tls';
import type * as NodeRedis from '@redis/client';

/**
 * node-redis, loaded when the transport first connects: a process that never does (every `baton`
 * command but those following text through a broker, a worker or client without BATON_STREAMS_URL)
 * is spared loading its ~500 modules, a third of a short command's start.
 */
const redis = (): typeof NodeRedis => require('@redis/client') as typeof NodeRedis;

/** TLS options for a `rediss://` server beyond what its URL says. */
export interface RedisTlsOptions {
  /** The CA certificate(s) (PEM) that signed the server's certificate, when it is not a public CA (NODE_EXTRA_CA_CERTS works too). */
  ca?: ConnectionOptions['ca'];
  /** A client certificate (PEM), for a server that asks for one (`tls-auth-clients yes`). */
  cert?: ConnectionOptions['cert'];
  /** The client certificate's private key (PEM). */
  key?: ConnectionOptions['key'];
  /** The name the server's certificate must carry. @default the URL's host */
  servername?: string;
  /** Refuse a server whose certificate does not verify. @default true */
  rejectUnauthorized?: boolean;
}

/** Where the transport connects: one server's URL, or a cluster's nodes. */
export interface RedisTarget {
  url: string;
  clusterNodes?: string[];
  tls?: RedisTlsOptions;
}

/** One server's client or a cluster's: the commands the transport sends are the same on both. */
export type RedisConnection = ReturnType<typeof NodeRedis.createClient> | ReturnType<typeof NodeRedis.createCluster>;

/** A URL for messages: scheme, host and port, never the credentials. */
export function describeTarget(target: RedisTarget): string {
  const shown = (raw: string) => {
    const u = new URL(raw);
    return `${u.protocol}//${u.hostname}:${u.port || 6379}`;
  };
  return target.clusterNodes
    ? `the Redis cluster at ${target.clusterNodes.map(shown).join(', ')}`
    : `Redis at ${shown(target.url)}`;
}

/** Checks a server URL, throwing an error that says what would be valid. */
export function checkRedisUrl(raw: string, inCluster = false): void {
  const valid = 'give redis://[user:password@]host:port[/db], or rediss:// for TLS (e.g. redis://127.0.0.1:6379)';
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new Error(`not a Redis URL: ${JSON.stringify(raw.replace(/\/\/[^@/]*@/, '//…@'))}; ${valid}`);
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:')
    throw new Error(`not a Redis URL (${u.protocol}//…); ${valid}`);
  const db = u.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d+$/.test(db))
    throw new Error(`the database in a Redis URL is a number, got ${JSON.stringify(db)}; ${valid}`);
  if (inCluster && db !== '' && db !== '0')
    throw new Error(`a Redis cluster has only database 0, and the node URL names ${db}: leave the /${db} out`);
}

/** A connection and the way to wait for it. */
export interface RedisLink {
  connection: RedisConnection;
  /** Resolves when the connection is up; rejects with the first error on the way, said for people (`explain`). */
  ready(): Promise<void>;
}

/**
 * Connect to `target` (node-redis reconnects by itself after a loss); `onError` hears every
 * connection error, of the server or, in a cluster, of any of its nodes.
 */
export function redisLink(target: RedisTarget, onError: (err: Error) => void): RedisLink {
  checkTarget(target);
  const connection = target.clusterNodes
    ? clusterOf(target.clusterNodes, target.tls)
    : clientOf(target.url, target.tls);
  return link(connection, target, onError);
}

/** Another connection to the same place: a follower's blocking reads hold one each. */
export function duplicateLink(of: RedisLink, target: RedisTarget, onError: (err: Error) => void): RedisLink {
  return link(of.connection.duplicate(), target, onError);
}

function link(connection: RedisConnection, target: RedisTarget, onError: (err: Error) => void): RedisLink {
  const waiting = new Set<(err: Error) => void>();
  const heard = (err: Error) => {
    onError(err);
    for (const w of waiting) w(err);
  };
  // Without a listener an error event would end the process; the client reconnects by itself.
  connection.on('error', heard);
  if ('nodeClient' in connection) connection.on('node-error', heard);
  // Pending while the first connection is refused: node-redis keeps trying.
  const opening = connection.connect().then(() => undefined);
  opening.catch(() => undefined);
  return {
    connection,
    async ready() {
      if (connection.isReady) return;
      let fail: (err: Error) => void = () => undefined;
      const failed = new Promise<never>((_, reject) => (fail = (err) => reject(explain(err, target))));
      waiting.add(fail);
      try {
        await Promise.race([opening, failed]);
      } finally {
        waiting.delete(fail);
      }
    },
  };
}

/** Checks where the transport is to connect, throwing an error that says what would be valid. */
export function checkTarget(target: RedisTarget): void {
  const nodes = target.clusterNodes;
  if (nodes?.length === 0)
    throw new Error("clusterNodes is empty: give the URLs of one or more of the cluster's nodes");
  for (const url of nodes ?? [target.url]) checkRedisUrl(url, nodes !== undefined);
  if (target.tls && new URL(nodes?.[0] ?? target.url).protocol !== 'rediss:')
    throw new Error('TLS options go with a rediss:// URL: write rediss://host:port');
}

function clientOf(url: string, tls: RedisTlsOptions | undefined): RedisConnection {
  return redis().createClient({
    url,
    disableOfflineQueue: true,
    ...(tls ? { socket: { tls: true as const, ...tls } } : {}),
  });
}

function clusterOf(nodes: string[], tls: RedisTlsOptions | undefined): RedisConnection {
  const first = new URL(nodes[0]!);
  return redis().createCluster({
    rootNodes: nodes.map((url) => ({ url })),
    // The nodes the cluster finds are reached with the first node's credentials and TLS.
    defaults: {
      ...(first.username ? { username: decodeURIComponent(first.username) } : {}),
      ...(first.password ? { password: decodeURIComponent(first.password) } : {}),
      disableOfflineQueue: true,
      ...(first.protocol === 'rediss:' ? { socket: { tls: true as const, ...tls } } : {}),
    },
  });
}

/** An error from the client as what it means for the transport, without the URL's password. */
export function explain(err: unknown, target: RedisTarget): Error {
  const message = err instanceof Error ? err.message : String(err);
  const where = describeTarget(target);
  if (/^(WRONGPASS|NOAUTH)/.test(message))
    return new Error(
      `${where} refused the credentials (${message}): give the ACL user and password in the URL, redis://user:password@host:port`,
      { cause: err },
    );
  if (/^NOPERM/.test(message))
    return new Error(
      `${where} does not allow the ACL user what the transport needs (${message}): it needs +xadd +expire +xread +xrevrange on ~baton:stream:* (see docs/streaming.md)`,
      { cause: err },
    );
  if (/certificate|CERT_|SSL routines|wrong version number/i.test(message))
    return new Error(
      `${where}: TLS failed (${message}): for a certificate a public CA did not sign, give its CA as the tls.ca option or in NODE_EXTRA_CA_CERTS; a server without TLS takes redis://`,
      { cause: err },
    );
  if (/ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ETIMEDOUT|offline|closed unexpectedly|Connection timeout/i.test(message))
    return new Error(
      `cannot reach ${where} (${message}): start redis-server there, or point BATON_STREAMS_URL at one`,
      { cause: err },
    );
  return new Error(`${where}: ${message}`, { cause: err });
}
