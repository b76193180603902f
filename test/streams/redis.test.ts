/**
 * The Redis Streams transport on its own, against a real redis-server (no TLS here; TLS, and
 * followers of real chains, are test/streams/broker.test.ts): what it writes and reads back, from
 * where, an ACL user in the URL, and a server that stops and comes back.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamsFromEnv } from '../../src/streams/env';
import { RedisStreams } from '../../src/streams/redis';
import type { StreamEntry, TextDelta } from '../../src/streams/types';
import { findRedisServer, startRedis } from '../helpers/redis';
import { waitFor } from '../helpers/wait';

let plain: Awaited<ReturnType<typeof startRedis>>;
let acl: Awaited<ReturnType<typeof startRedis>>;
/** A password with the characters a URL must escape. */
const PASSWORD = 'ot@ter:p/ss%1';
beforeAll(async () => {
  plain = await startRedis();
  acl = await startRedis({
    users: ['default off', `baton on >${PASSWORD} ~baton:stream:* +xadd +expire +xread +xrevrange`],
  });
});
afterAll(async () => {
  await plain?.stop();
  await acl?.stop();
});

const delta = (text: string, offset = 0): TextDelta => ({
  workflowId: 'w',
  runId: 'r',
  agent: 'a',
  call: 'a#0',
  turn: 0,
  restart: 0,
  attempt: 1,
  offset,
  text,
});
const quiet = { onConnectionChange: () => undefined };

/** Entries of `topic` after `cursor` until `count` arrived (or `timeoutMs` passed). */
async function readUntil(
  streams: RedisStreams,
  topic: string,
  count: number,
  cursor?: string,
  timeoutMs = 10_000,
): Promise<StreamEntry[]> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  const got: StreamEntry[] = [];
  try {
    for await (const entries of streams.read(topic, cursor, abort.signal)) {
      got.push(...entries);
      if (got.length >= count) abort.abort();
    }
  } finally {
    clearTimeout(timer);
  }
  return got;
}

describe('the Redis Streams transport on one server', () => {
  it('reads back what was published, from the start or after a cursor, and follows what comes next', async () => {
    const streams = new RedisStreams({ url: plain.url, ...quiet });
    try {
      expect(await streams.last('plain')).toBeUndefined();
      await streams.publish('plain', [delta('The '), delta('otter ', 4)]);
      await streams.publish('plain', [delta('swims.', 10)]);
      // Nothing published: no batch written.
      await streams.publish('plain', []);
      const all = await readUntil(streams, 'plain', 3);
      expect(all.map((e) => e.delta.text)).toEqual(['The ', 'otter ', 'swims.']);
      // One batch, one cursor: the first two share theirs.
      expect(all[0]!.cursor).toBe(all[1]!.cursor);
      expect(await streams.last('plain')).toBe(all[2]!.cursor);
      expect((await readUntil(streams, 'plain', 1, all[0]!.cursor)).map((e) => e.delta.text)).toEqual(['swims.']);
      // A cursor that is not Redis's is read from the start, not refused.
      expect(await readUntil(streams, 'plain', 3, 'not-a-cursor')).toHaveLength(3);

      // A follower blocked on the newest batch gets the next one as soon as it is written.
      const waiting = readUntil(streams, 'plain', 1, all[2]!.cursor);
      await new Promise((r) => setTimeout(r, 200));
      await streams.publish('plain', [delta(' Fast.', 16)]);
      expect((await waiting).map((e) => e.delta.text)).toEqual([' Fast.']);
    } finally {
      await streams.close();
    }
  });

  it('an abort ends a blocked read at once, and the transport refuses work once closed', async () => {
    const streams = new RedisStreams({ url: plain.url, ...quiet });
    const abort = new AbortController();
    const started = Date.now();
    const reading = (async () => {
      for await (const _ of streams.read('idle', undefined, abort.signal)) void _;
    })();
    await new Promise((r) => setTimeout(r, 300));
    abort.abort();
    await reading;
    // Well before the 5 s block of XREAD would have ended.
    expect(Date.now() - started).toBeLessThan(3_000);
    await streams.close();
    await expect(streams.publish('idle', [delta('late')])).rejects.toThrow(/was closed/);
  });

  it('BATON_STREAMS_URL names the same transport for a process until it is closed; a bad URL is refused saying what would be valid', async () => {
    const env = { BATON_STREAMS_URL: plain.url };
    const a = streamsFromEnv(env);
    expect(streamsFromEnv(env)).toBe(a);
    await a.publish('env', [delta('from env')]);
    expect(await a.last('env')).toMatch(/^\d+-\d+$/);
    await a.close();
    // A closed one is not handed out again: the next caller gets a transport that works.
    const b = streamsFromEnv(env);
    expect(b).not.toBe(a);
    await b.publish('env', [delta('after a close')]);
    expect(streamsFromEnv(env)).toBe(b);
    await b.close();
    expect(() => new RedisStreams({ url: 'http://127.0.0.1:6379' })).toThrow(
      /not a Redis URL \(http:\/\/…\); give redis:\/\/\[user:password@\]host:port/,
    );
    expect(() => new RedisStreams({ url: 'redis://127.0.0.1:6379/otters' })).toThrow(
      /the database in a Redis URL is a number/,
    );
    expect(() => new RedisStreams({ url: 'redis://127.0.0.1:6379', tls: {} })).toThrow(
      /TLS options go with a rediss:\/\/ URL/,
    );
  });

  it('an ACL user in the URL (its password escaped) may use the transport; without it, or with a wrong password, it is refused, never showing the password', async () => {
    const url = acl.url.replace('redis://', `redis://baton:${encodeURIComponent(PASSWORD)}@`);
    const streams = new RedisStreams({ url, ...quiet });
    const none = new RedisStreams({ url: acl.url, ...quiet });
    const wrong = new RedisStreams({ url: acl.url.replace('redis://', 'redis://baton:wrong-secret@'), ...quiet });
    try {
      await streams.publish('acl', [delta('allowed')]);
      expect((await readUntil(streams, 'acl', 1)).map((e) => e.delta.text)).toEqual(['allowed']);
      await expect(none.publish('acl', [delta('x')])).rejects.toThrow(/refused the credentials \(NOAUTH/);
      const refused = await wrong.publish('acl', [delta('x')]).then(
        () => undefined,
        (err: Error) => err,
      );
      expect(refused?.message).toMatch(/refused the credentials \(WRONGPASS/);
      expect(refused?.message).not.toMatch(/wrong-secret/);
    } finally {
      await Promise.all([streams.close(), none.close(), wrong.close()]);
    }
  });

  it('a server that is not there is an error saying so, at once, not a wait', async () => {
    const gone = await startRedis();
    await gone.stop();
    const changes: boolean[] = [];
    const streams = new RedisStreams({ url: gone.url, onConnectionChange: (c) => changes.push(c.up) });
    const started = Date.now();
    try {
      await expect(streams.publish('nowhere', [delta('x')])).rejects.toThrow(
        /cannot reach Redis at redis:\/\/127\.0\.0\.1:\d+ \(.*\): start redis-server there, or point BATON_STREAMS_URL at one/,
      );
      await expect(streams.last('nowhere')).rejects.toThrow(/cannot reach Redis/);
      expect(Date.now() - started).toBeLessThan(5_000);
      // Told once, however many calls failed.
      expect(changes).toEqual([false]);
    } finally {
      await streams.close();
    }
  });

  it('a server stopped under a blocked follower: the read fails saying why, writes fail at once, the outage is told once; when it is back the same transport writes and reads again', async () => {
    const server = await startRedis();
    const changes: boolean[] = [];
    const streams = new RedisStreams({ url: server.url, onConnectionChange: (c) => changes.push(c.up) });
    try {
      await streams.publish('outage', [delta('before')]);
      const cursor = await streams.last('outage');
      const abort = new AbortController();
      const failed = (async () => {
        for await (const _ of streams.read('outage', cursor, abort.signal)) void _;
      })().then(
        () => undefined,
        (err: Error) => err,
      );
      await new Promise((r) => setTimeout(r, 300));
      await server.stop();
      const error = await Promise.race([failed, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 20_000))]);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(/cannot reach Redis at redis:\/\/127\.0\.0\.1:/);
      for (let i = 0; i < 3; i++)
        await expect(streams.publish('outage', [delta(`during ${i}`)])).rejects.toThrow(
          /Redis at redis:\/\/127\.0\.0\.1:/,
        );
      expect(changes).toEqual([false]);

      await server.restart();
      await waitFor(
        () =>
          streams.publish('outage', [delta('after')]).then(
            () => true,
            () => false,
          ),
        (ok) => ok,
        20_000,
      );
      expect(changes).toEqual([false, true]);
      // Read on from where the follower was: the server kept nothing, so what came after is all there is.
      expect((await readUntil(streams, 'outage', 1, cursor)).map((e) => e.delta.text)).toEqual(['after']);
    } finally {
      await streams.close();
      await server.stop();
    }
  }, 60_000);

  it('a follower that stopped reading leaves its connection for the next; one found dead in an outage is not left reconnecting', async () => {
    const server = await startRedis();
    const streams = new RedisStreams({ url: server.url, ...quiet });
    try {
      await streams.publish('pool', [delta('one')]);
      // Broken out of (not aborted): the follower's connection waits for the next follower.
      for await (const _ of streams.read('pool', undefined, new AbortController().signal)) break;
      expect(clients(server.port)).toBe(2);
      await server.stop();
      // A follower in the outage finds the waiting connection dead, and fails.
      await expect(readUntil(streams, 'pool', 1)).rejects.toThrow(/Redis at/);
      await server.restart();
      await waitFor(
        () =>
          streams.publish('pool', [delta('two')]).then(
            () => true,
            () => false,
          ),
        (ok) => ok,
        20_000,
      );
      expect((await readUntil(streams, 'pool', 1)).map((e) => e.delta.text)).toEqual(['two']);
      // The writer and the follower's connection; none left over from before the outage.
      await new Promise((r) => setTimeout(r, 2_000));
      // The writer alone: the aborted follower's connection ended, and none from before the outage came back.
      expect(clients(server.port)).toBe(1);
    } finally {
      await streams.close();
      await server.stop();
    }
  }, 60_000);
});

/** How many clients `redis-cli` finds connected to the server on `port`, itself left out. */
function clients(port: number): number {
  const cli = path.join(
    path.dirname(process.env.BATON_REDIS_SERVER ?? findRedisServer() ?? '/usr/bin/redis-server'),
    'redis-cli',
  );
  const listed = spawnSync(cli, ['-p', String(port), 'client', 'list'], { encoding: 'utf8' });
  if (listed.status !== 0) throw new Error(`redis-cli client list failed: ${listed.stderr || listed.error?.message}`);
  return listed.stdout.split('\n').filter((l) => l.includes('addr=') && !/ cmd=client\|list /.test(l)).length;
}
