import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamsFromEnv } from '../../src/streams/env';
import { RedisStreams } from '../../src/streams/redis';
import type { StreamEntry, TextDelta } from '../../src/streams/types';
import { startRedisCluster } from '../helpers/redis';

let cluster: Awaited<ReturnType<typeof startRedisCluster>>;
beforeAll(async () => {
  cluster = await startRedisCluster(3);
});
afterAll(async () => {
  await cluster?.stop();
});

const delta = (topic: string, text: string): TextDelta => ({
  workflowId: topic,
  runId: 'r',
  agent: 'a',
  call: 'a#0',
  turn: 0,
  restart: 0,
  attempt: 1,
  offset: 0,
  text,
});

/** Entries of `topic` read until `count` arrived. */
async function readUntil(streams: RedisStreams, topic: string, count: number, cursor?: string): Promise<StreamEntry[]> {
  const abort = new AbortController();
  const got: StreamEntry[] = [];
  for await (const entries of streams.read(topic, cursor, abort.signal)) {
    got.push(...entries);
    if (got.length >= count) abort.abort();
  }
  return got;
}

describe('Redis Streams on a Redis Cluster', () => {
  it('spreads topics over the shards, reads each back, and follows one live', async () => {
    // One node given; the client finds the others.
    const streams = new RedisStreams({ clusterNodes: [cluster.urls[1]!] });
    try {
      const topics = Array.from({ length: 24 }, (_, i) => `chain-${i}`);
      await Promise.all(topics.map((t) => streams.publish(t, [delta(t, `text of ${t}`)])));
      for (const t of topics)
        expect((await readUntil(streams, t, 1)).map((e) => e.delta.text)).toEqual([`text of ${t}`]);
      // Each topic is one key: its hash slot puts it on one shard, so 24 of them land on several.
      const shards = new Set(await Promise.all(topics.map(async (t) => (await nodeOf(t)) ?? 'none')));
      expect(shards.size).toBeGreaterThan(1);

      // A follower blocks on its topic's shard and gets what is published after it began.
      const from = await streams.last('chain-0');
      const following = readUntil(streams, 'chain-0', 2, from);
      await new Promise((r) => setTimeout(r, 300));
      await streams.publish('chain-0', [delta('chain-0', 'one'), delta('chain-0', 'two')]);
      expect((await following).map((e) => e.delta.text)).toEqual(['one', 'two']);
    } finally {
      await streams.close();
    }
  });

  it('BATON_STREAMS_URL with several URLs names the cluster', async () => {
    const streams = streamsFromEnv({ BATON_STREAMS_URL: cluster.urls.join(',') });
    try {
      await streams.publish('env-topic', [delta('env-topic', 'through the environment')]);
      expect(await streams.last('env-topic')).toMatch(/^\d+-\d+$/);
    } finally {
      await streams.close();
    }
  });

  it('refuses a database other than 0 in a node URL, saying a cluster has only database 0', () => {
    expect(() => new RedisStreams({ clusterNodes: [`${cluster.urls[0]}/2`] })).toThrow(/only database 0/);
    expect(() => new RedisStreams({ clusterNodes: [] })).toThrow(/clusterNodes is empty/);
    expect(() => new RedisStreams({ url: 'http://127.0.0.1:6379' })).toThrow(/not a Redis URL/);
  });
});

/** The port of the node that holds `topic`'s key (CLUSTER KEYSLOT, then who serves the slot). */
async function nodeOf(topic: string): Promise<string | undefined> {
  const { execFileSync } = await import('node:child_process');
  const port = String(cluster.ports[0]);
  const slot = Number(
    execFileSync('redis-cli', ['-p', port, 'cluster', 'keyslot', `baton:stream:${topic}`], { encoding: 'utf8' }).trim(),
  );
  const shards = execFileSync('redis-cli', ['-p', port, 'cluster', 'slots'], { encoding: 'utf8' }).trim().split('\n');
  // CLUSTER SLOTS prints, per range: start, end, host, port, id (one value a line).
  for (let i = 0; i + 3 < shards.length; i++) {
    const [start, end, host, p] = shards.slice(i, i + 4);
    if (
      /^\d+$/.test(start!) &&
      /^\d+$/.test(end!) &&
      host === '127.0.0.1' &&
      Number(start) <= slot &&
      slot <= Number(end)
    )
      return p;
  }
  return undefined;
}
