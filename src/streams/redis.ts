/**
 * The Redis Streams transport: for workers and callers in separate processes (or machines). Each
 * topic is a Redis stream (`baton:stream:<topic>`), one entry per published batch, trimmed to
 * `maxBatches` and expiring `retentionMs` after its last batch. Followers block on XREAD, so a
 * delta reaches them as soon as Redis has it.
 */
import { parseRedisUrl, type RedisAddress, RespConnection, type RespValue } from './resp';
import type { StreamEntry, StreamTransport, TextDelta } from './types';

/** Options of {@link RedisStreams}. */
export interface RedisStreamsOptions {
  /** The server: `redis://[:password@]host[:port][/db]`. @default "redis://127.0.0.1:6379" */
  url?: string;
  /** Batches kept per topic (approximately: Redis trims whole nodes). @default 10000 */
  maxBatches?: number;
  /** How long a topic is kept after its last batch, in milliseconds. @default 3600000 (an hour) */
  retentionMs?: number;
  /** Prefix of the keys. @default "baton:stream:" */
  prefix?: string;
}

/** How long one XREAD blocks before it is sent again (and an aborted follower notices). */
const BLOCK_MS = 5_000;

/** Deltas in Redis Streams. */
export class RedisStreams implements StreamTransport {
  readonly #address: RedisAddress;
  readonly #maxBatches: number;
  readonly #retentionSeconds: number;
  readonly #prefix: string;
  #writer?: Promise<RespConnection>;
  /** Connections free for a follower's blocking reads. */
  readonly #idle: RespConnection[] = [];
  readonly #open = new Set<RespConnection>();

  constructor(options: RedisStreamsOptions = {}) {
    this.#address = parseRedisUrl(options.url ?? 'redis://127.0.0.1:6379');
    this.#maxBatches = options.maxBatches ?? 10_000;
    this.#retentionSeconds = Math.max(1, Math.ceil((options.retentionMs ?? 3_600_000) / 1000));
    this.#prefix = options.prefix ?? 'baton:stream:';
  }

  async publish(topic: string, deltas: TextDelta[]): Promise<void> {
    if (deltas.length === 0) return;
    const writer = await this.#writerConnection();
    const key = this.#prefix + topic;
    await Promise.all([
      writer.command(['XADD', key, 'MAXLEN', '~', String(this.#maxBatches), '*', 'd', JSON.stringify(deltas)]),
      writer.command(['EXPIRE', key, String(this.#retentionSeconds)]),
    ]);
  }

  async last(topic: string): Promise<string | undefined> {
    const writer = await this.#writerConnection();
    const newest = (await writer.command(['XREVRANGE', this.#prefix + topic, '+', '-', 'COUNT', '1'])) as RespValue[] | null;
    const first = newest?.[0] as RespValue[] | undefined;
    return typeof first?.[0] === 'string' ? first[0] : undefined;
  }

  async *read(topic: string, cursor: string | undefined, signal: AbortSignal): AsyncIterable<StreamEntry[]> {
    const key = this.#prefix + topic;
    let after = cursor && /^\d+-\d+$/.test(cursor) ? cursor : '0-0';
    const connection = await this.#reader();
    const abort = () => connection.close();
    signal.addEventListener('abort', abort, { once: true });
    let healthy = true;
    try {
      while (!signal.aborted) {
        let reply: RespValue;
        try {
          reply = await connection.command(['XREAD', 'COUNT', '1000', 'BLOCK', String(BLOCK_MS), 'STREAMS', key, after]);
        } catch (err) {
          healthy = false;
          if (signal.aborted) return;
          throw err;
        }
        const entries = entriesOf(reply);
        if (entries.length === 0) continue;
        after = entries.at(-1)!.cursor;
        yield entries;
      }
    } finally {
      signal.removeEventListener('abort', abort);
      if (healthy && !connection.closed && !signal.aborted) this.#idle.push(connection);
      else this.#forget(connection);
    }
  }

  async close(): Promise<void> {
    const writer = await this.#writer?.catch(() => undefined);
    writer?.close();
    for (const c of this.#open) c.close();
    this.#open.clear();
    this.#idle.length = 0;
  }

  async #writerConnection(): Promise<RespConnection> {
    const current = await this.#writer?.catch(() => undefined);
    if (current && !current.closed) return current;
    this.#writer = RespConnection.open(this.#address);
    return this.#writer;
  }

  async #reader(): Promise<RespConnection> {
    for (let c = this.#idle.pop(); c; c = this.#idle.pop()) if (!c.closed) return c;
    const c = await RespConnection.open(this.#address);
    this.#open.add(c);
    return c;
  }

  #forget(c: RespConnection): void {
    c.close();
    this.#open.delete(c);
  }
}

/** XREAD's reply (`[[key, [[id, [field, value, …]], …]]]`) as entries, one per delta. */
function entriesOf(reply: RespValue): StreamEntry[] {
  if (!Array.isArray(reply)) return [];
  const out: StreamEntry[] = [];
  for (const stream of reply) {
    const items = Array.isArray(stream) ? stream[1] : undefined;
    if (!Array.isArray(items)) continue;
    for (const item of items) {
      if (!Array.isArray(item) || typeof item[0] !== 'string' || !Array.isArray(item[1])) continue;
      const fields = item[1];
      const at = fields.indexOf('d');
      const raw = at >= 0 ? fields[at + 1] : undefined;
      if (typeof raw !== 'string') continue;
      try {
        for (const delta of JSON.parse(raw) as TextDelta[]) out.push({ cursor: item[0], delta });
      } catch {
        // An entry that is not ours (another writer under the prefix): skipped.
      }
    }
  }
  return out;
}
