/**
 * A small Redis client: one TCP connection speaking RESP2, commands pipelined and answered in
 * order. Enough for the Redis Streams transport (XADD, XREAD, XREVRANGE, EXPIRE), without a
 * dependency.
 */
import net from 'node:net';

/** A reply: a status or bulk string, an integer, an array of replies, or nil. */
export type RespValue = string | number | null | RespValue[];

/** An error reply from Redis (`-ERR …`). */
export class RedisReplyError extends Error {
  override readonly name = 'RedisReplyError';
}

/** Where a Redis server is: `redis://[:password@]host[:port][/db]`. */
export interface RedisAddress {
  host: string;
  port: number;
  password?: string;
  username?: string;
  db?: number;
}

/** A `redis://` URL as the address it names; throws on anything else. */
export function parseRedisUrl(url: string): RedisAddress {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`not a Redis URL: ${JSON.stringify(url)}; give redis://host:port (e.g. redis://127.0.0.1:6379)`);
  }
  if (u.protocol !== 'redis:') throw new Error(`not a Redis URL: ${JSON.stringify(url)}; give redis://host:port (e.g. redis://127.0.0.1:6379)`);
  const db = u.pathname.replace(/^\//, '');
  return {
    host: u.hostname || '127.0.0.1',
    port: u.port ? Number(u.port) : 6379,
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(db && /^\d+$/.test(db) ? { db: Number(db) } : {}),
  };
}

/** A command sent and waiting for its reply. */
interface Pending {
  /** Answers the command with its reply. */
  resolve(value: RespValue): void;
  /** Fails the command. */
  reject(err: Error): void;
}

/** One connection to Redis. Commands sent before it is up wait for it; a lost connection fails what waits. */
export class RespConnection {
  readonly #socket: net.Socket;
  readonly #pending: Pending[] = [];
  #buffer: Buffer = Buffer.alloc(0);
  #closed?: Error;
  readonly ready: Promise<void>;

  private constructor(address: RedisAddress) {
    this.#socket = net.createConnection({ host: address.host, port: address.port });
    this.#socket.setNoDelay(true);
    this.ready = new Promise((resolve, reject) => {
      this.#socket.once('connect', resolve);
      this.#socket.once('error', reject);
    });
    this.#socket.on('data', (chunk: Buffer) => this.#read(chunk));
    this.#socket.on('error', (err) => this.#fail(err));
    this.#socket.on('close', () => this.#fail(new Error('the connection to Redis closed')));
  }

  /** A connection, authenticated and on its database. */
  static async open(address: RedisAddress): Promise<RespConnection> {
    const c = new RespConnection(address);
    try {
      await c.ready;
    } catch (err) {
      c.close();
      throw new Error(`cannot reach Redis at ${address.host}:${address.port} (${(err as Error).message}): start redis-server there, or point BATON_STREAMS_URL at one`);
    }
    if (address.password) await c.command(address.username ? ['AUTH', address.username, address.password] : ['AUTH', address.password]);
    if (address.db) await c.command(['SELECT', String(address.db)]);
    return c;
  }

  get closed(): boolean {
    return this.#closed !== undefined;
  }

  /** Send one command; resolves with its reply, rejects with a `RedisReplyError` for an error reply. */
  command(args: string[]): Promise<RespValue> {
    if (this.#closed) return Promise.reject(this.#closed);
    return new Promise((resolve, reject) => {
      this.#pending.push({ resolve, reject });
      this.#socket.write(encode(args));
    });
  }

  /** Close the connection; commands waiting for a reply fail. */
  close(): void {
    this.#fail(new Error('the connection to Redis was closed'));
    this.#socket.destroy();
  }

  #fail(err: Error): void {
    this.#closed ??= err;
    for (const p of this.#pending.splice(0)) p.reject(err);
  }

  #read(chunk: Buffer): void {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    for (;;) {
      const parsed = parse(this.#buffer, 0);
      if (!parsed) return;
      this.#buffer = this.#buffer.subarray(parsed.end);
      const p = this.#pending.shift();
      if (!p) continue;
      if (parsed.value instanceof RedisReplyError) p.reject(parsed.value);
      else p.resolve(parsed.value);
    }
  }
}

function encode(args: string[]): Buffer {
  const parts: (string | Buffer)[] = [`*${args.length}\r\n`];
  for (const a of args) {
    const b = Buffer.from(a, 'utf8');
    parts.push(`$${b.length}\r\n`, b, '\r\n');
  }
  return Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));
}

type Parsed = { value: RespValue | RedisReplyError; end: number };

/** One reply from `buf` at `at`, or `undefined` when it has not all arrived. */
function parse(buf: Buffer, at: number): Parsed | undefined {
  const line = buf.indexOf('\r\n', at);
  if (line < 0) return undefined;
  const type = String.fromCharCode(buf[at]!);
  const head = buf.toString('utf8', at + 1, line);
  const next = line + 2;
  switch (type) {
    case '+':
      return { value: head, end: next };
    case '-':
      return { value: new RedisReplyError(head), end: next };
    case ':':
      return { value: Number(head), end: next };
    case '$': {
      const n = Number(head);
      if (n < 0) return { value: null, end: next };
      if (buf.length < next + n + 2) return undefined;
      return { value: buf.toString('utf8', next, next + n), end: next + n + 2 };
    }
    case '*': {
      const n = Number(head);
      if (n < 0) return { value: null, end: next };
      const items: RespValue[] = [];
      let end = next;
      for (let i = 0; i < n; i++) {
        const item = parse(buf, end);
        if (!item) return undefined;
        items.push(item.value instanceof RedisReplyError ? null : item.value);
        end = item.end;
      }
      return { value: items, end };
    }
    default:
      throw new Error(`unexpected reply from Redis: ${JSON.stringify(buf.toString('utf8', at, Math.min(buf.length, at + 40)))}`);
  }
}
