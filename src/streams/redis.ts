/**
 * The Redis Streams transport: for workers and callers in separate processes (or machines). Each
 * topic is a Redis stream (`baton:stream:<topic>`), one entry per published batch, trimmed to
 * `maxBatches` and expiring `retentionMs` after its last batch. Followers block on XREAD, so a
 * delta reaches them as soon as Redis has it. Built on the official client (node-redis): TLS,
 * ACL users, reconnection and Redis Cluster come from it (src/streams/redisConnect.ts).
 */
import {
  checkTarget,
  describeTarget,
  duplicateLink,
  explain,
  redisLink,
  type RedisLink,
  type RedisTarget,
  type RedisTlsOptions,
} from './redisConnect';
import type { StreamEntry, StreamTransport, TextDelta } from './types';

export type { RedisTlsOptions } from './redisConnect';

/** Options of {@link RedisStreams}. */
export interface RedisStreamsOptions {
  /**
   * The server: `redis://[[user]:password@]host[:port][/db]`, `rediss://…` for TLS; an ACL user
   * and password go in the URL.
   * @default "redis://127.0.0.1:6379"
   */
  url?: string;
  /**
   * A Redis Cluster instead of one server: URLs of some of its nodes (the rest are found); the
   * first one's user, password and TLS reach every node. Each topic is one key, so one shard holds
   * it: topics spread over the shards, one topic's batches do not.
   */
  clusterNodes?: string[];
  /** TLS for a `rediss://` server whose certificate a public CA did not sign, or that asks for a client certificate. */
  tls?: RedisTlsOptions;
  /** Batches kept per topic (approximately: Redis trims whole nodes). @default 10000 */
  maxBatches?: number;
  /** How long a topic is kept after its last batch, in milliseconds. @default 3600000 (an hour) */
  retentionMs?: number;
  /** Prefix of the keys. @default "baton:stream:" */
  prefix?: string;
  /**
   * Told when the connection is lost or refused (once until it is back) and when it is back.
   * @default a line on stderr
   */
  onConnectionChange?: (change: { up: false; error: Error } | { up: true }) => void;
}

/** How long one XREAD blocks before it is sent again (and an aborted follower notices). */
const BLOCK_MS = 5_000;
/** A blocking read with no answer this long after its block ends is on a dead connection. */
const READ_TIMEOUT_MS = BLOCK_MS + 10_000;

/** Deltas in Redis Streams. */
export class RedisStreams implements StreamTransport {
  readonly #target: RedisTarget;
  readonly #maxBatches: number;
  readonly #retentionSeconds: number;
  readonly #prefix: string;
  readonly #onChange: NonNullable<RedisStreamsOptions['onConnectionChange']>;
  #writer?: RedisLink;
  #closed = false;
  #down = false;
  /** Connections free for a follower's blocking reads. */
  readonly #idle: RedisLink[] = [];
  readonly #open = new Set<RedisLink>();

  constructor(options: RedisStreamsOptions = {}) {
    this.#target = {
      url: options.url ?? 'redis://127.0.0.1:6379',
      ...(options.clusterNodes ? { clusterNodes: options.clusterNodes } : {}),
      ...(options.tls ? { tls: options.tls } : {}),
    };
    // A bad URL is an error now, not at the first publish; the connection is made at the first.
    checkTarget(this.#target);
    this.#maxBatches = options.maxBatches ?? 10_000;
    this.#retentionSeconds = Math.max(1, Math.ceil((options.retentionMs ?? 3_600_000) / 1000));
    this.#prefix = options.prefix ?? 'baton:stream:';
    this.#onChange =
      options.onConnectionChange ??
      ((c) =>
        console.warn(
          c.up
            ? `baton streams: ${describeTarget(this.#target)} is back`
            : `baton streams: ${c.error.message}; retrying (followers get each answer from history meanwhile)`,
        ));
  }

  async publish(topic: string, deltas: TextDelta[]): Promise<void> {
    if (deltas.length === 0) return;
    const writer = await this.#ready();
    const key = this.#prefix + topic;
    try {
      await Promise.all([
        writer.xAdd(
          key,
          '*',
          { d: JSON.stringify(deltas) },
          { TRIM: { strategy: 'MAXLEN', strategyModifier: '~', threshold: this.#maxBatches } },
        ),
        writer.expire(key, this.#retentionSeconds),
      ]);
      this.#back();
    } catch (err) {
      throw explain(err, this.#target);
    }
  }

  async last(topic: string): Promise<string | undefined> {
    const writer = await this.#ready();
    try {
      return (await writer.xRevRange(this.#prefix + topic, '+', '-', { COUNT: 1 }))?.[0]?.id;
    } catch (err) {
      throw explain(err, this.#target);
    }
  }

  async *read(topic: string, cursor: string | undefined, signal: AbortSignal): AsyncIterable<StreamEntry[]> {
    const key = this.#prefix + topic;
    let after = cursor && /^\d+-\d+$/.test(cursor) ? cursor : '0-0';
    const reader = await this.#reader();
    // A blocking read holds its connection: ending the connection is what ends the read.
    const abort = () => reader.connection.destroy();
    signal.addEventListener('abort', abort, { once: true });
    let healthy = true;
    try {
      while (!signal.aborted) {
        let reply: Awaited<ReturnType<typeof xRead>>;
        try {
          reply = await xRead(reader, key, after);
        } catch (err) {
          healthy = false;
          if (signal.aborted) return;
          throw explain(err, this.#target);
        }
        const entries = entriesOf(reply);
        if (entries.length === 0) continue;
        after = entries.at(-1)!.cursor;
        yield entries;
      }
    } finally {
      signal.removeEventListener('abort', abort);
      if (healthy && !signal.aborted && reader.connection.isReady) this.#idle.push(reader);
      else this.#forget(reader);
    }
  }

  /** Whether {@link close} was called: a closed transport refuses to publish and to read. */
  get closed(): boolean {
    return this.#closed;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#writer?.connection.destroy();
    this.#writer = undefined;
    for (const r of this.#open) r.connection.destroy();
    this.#open.clear();
    this.#idle.length = 0;
  }

  async #ready() {
    if (this.#closed) throw new Error(`the Redis Streams transport (${describeTarget(this.#target)}) was closed`);
    if (!this.#writer) {
      this.#writer = redisLink(this.#target, (err) => this.#lost(err));
      this.#writer.connection.on('ready', () => this.#back());
    }
    await this.#writer.ready();
    return this.#writer.connection;
  }

  async #reader(): Promise<RedisLink> {
    // A waiting connection that went down meanwhile is ended, not left reconnecting on its own.
    for (let r = this.#idle.pop(); r; r = this.#idle.pop()) {
      if (r.connection.isReady) return r;
      this.#forget(r);
    }
    await this.#ready();
    // Its errors reach the read that waits on it; the writer's report the outage.
    const r = duplicateLink(this.#writer!, this.#target, () => undefined);
    this.#open.add(r);
    try {
      await r.ready();
    } catch (err) {
      this.#forget(r);
      throw err;
    }
    return r;
  }

  #forget(r: RedisLink): void {
    r.connection.destroy();
    this.#open.delete(r);
  }

  #lost(err: Error): void {
    if (this.#down || this.#closed) return;
    this.#down = true;
    this.#onChange({ up: false, error: explain(err, this.#target) });
  }

  #back(): void {
    if (!this.#down) return;
    this.#down = false;
    this.#onChange({ up: true });
  }
}

/** One blocking XREAD of `key` after `id`, on a follower's own connection. */
function xRead(reader: RedisLink, key: string, id: string) {
  return reader.connection
    .withCommandOptions({ timeout: READ_TIMEOUT_MS })
    .xRead({ key, id }, { COUNT: 1000, BLOCK: BLOCK_MS });
}

/** XREAD's reply (`[{name, messages: [{id, message: {d}}]}]`) as entries, one per delta. */
function entriesOf(reply: unknown): StreamEntry[] {
  if (!Array.isArray(reply)) return [];
  const out: StreamEntry[] = [];
  for (const stream of reply as { messages?: { id: string; message: Record<string, string> }[] }[]) {
    for (const { id, message } of stream.messages ?? []) {
      const raw = message.d;
      if (typeof raw !== 'string') continue;
      try {
        for (const delta of JSON.parse(raw) as TextDelta[]) out.push({ cursor: id, delta });
      } catch {
        // An entry that is not ours (another writer under the prefix): skipped.
      }
    }
  }
  return out;
}
