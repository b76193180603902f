/**
 * Streaming: `npx tsx bench/streaming.ts [--reps 9] [--streams 100] [--ttft-ms 400]` (`--quick`: 5
 * reps, 50 streams). Against the OpenAI-compatible test server answering with a first token after
 * `--ttft-ms` (a hosted model's usual wait) and then a chunk every 10 ms, it measures in one run:
 * time to first token straight from the server and through baton (a chain's `run.stream()` from the
 * start, and a conversation's `chat.stream()` from the send), deltas per second delivered to
 * followers of `--streams` chains streaming at once (in-process, and through Redis Streams when
 * redis-server is on this machine), and the history events a streamed answer adds (a chain whose
 * answer streams in 10 chunks against one in 1,000, and against the same chain not streaming).
 * Prints tables and writes bench/streaming-results.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { defineAgent, openai, OpenAIProvider, Team } from '../src';
import { Baton } from '../src/client/baton';
import { startDevServer, type DevServer } from '../src/devserver/server';
import { applyChange } from '../src/streams/board';
import { inProcessStreams } from '../src/streams/memory';
import { RedisStreams } from '../src/streams/redis';
import type { StreamTransport } from '../src/streams/types';
import { createWorker } from '../src/worker';
import { reply, startOpenAIServer } from '../test/helpers/openaiServer';
import { findRedisServer, startRedis } from '../test/helpers/redis';
import { round, table } from './lib';
import { timeToFirstToken, words, type Fake } from './ttft';

const { values } = parseArgs({
  options: {
    reps: { type: 'string', default: '9' },
    streams: { type: 'string', default: '100' },
    'ttft-ms': { type: 'string', default: '400' },
    quick: { type: 'boolean', default: false },
  },
});
const reps = values.quick ? 5 : Number(values.reps);
const streams = values.quick ? 50 : Number(values.streams);
const ttftMs = Number(values['ttft-ms']);

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const env = await startDevServer();
  const fake = await startOpenAIServer();
  const results: Record<string, unknown> = {
    date: new Date().toISOString(),
    node: process.version,
    ttftMs,
    reps,
    streams,
  };
  try {
    const ttft = await timeToFirstToken(env, fake, team(fake), { reps, ttftMs });
    results.ttft = ttft;
    console.log(`\ntime to first token (server's first token after ${ttftMs} ms; median of ${reps})`);
    const paths: [string, number][] = [
      ['baton chain, from start() to the first text of run.stream()', ttft.chain],
      ['baton conversation, from send to the first text of chat.stream()', ttft.conversation],
      ['HTTP: POST /v1/runs, then the first text event of GET /v1/runs/{id}/stream', ttft.sseChain],
      ['HTTP: POST a message with "stream": true to the first text event', ttft.sseConversation],
    ];
    console.log(
      table([
        { path: 'straight from the model server', ms: ttft.direct, ratio: 1 },
        ...paths.map(([path, ms]) => ({ path, ms, ratio: round(ms / ttft.direct) })),
      ]),
    );

    const rates: Record<string, string | number>[] = [];
    rates.push(await concurrent(env, fake, 'in-process', inProcessStreams()));
    const redisServer = findRedisServer() ? await startRedis() : undefined;
    if (redisServer) {
      const redis = new RedisStreams({ url: redisServer.url });
      rates.push(await concurrent(env, fake, 'Redis Streams', redis));
      await redis.close();
      await redisServer.stop();
    } else rates.push({ transport: 'Redis Streams', note: 'skipped: no redis-server on this machine' });
    results.concurrent = rates;
    console.log(`\n${streams} chains streaming at once (each answer 300 chunks, one every 10 ms), a follower each`);
    console.log(table(rates));

    const history = await historyEvents(env, fake);
    results.history = history;
    console.log('\nhistory events of a one-call chain');
    console.log(table(history.rows));
  } finally {
    await fake.close();
    await env.teardown();
  }
  fs.writeFileSync(path.join(__dirname, 'streaming-results.json'), `${JSON.stringify(results, null, 2)}\n`);
}

function team(fake: Fake): Team {
  return new Team([
    defineAgent({ id: 'writer', instructions: 'Write.', model: openai('gpt-fake', { baseURL: fake.url }) }),
  ]);
}

/** `streams` chains streaming at once, each followed; deltas delivered per second and whether each follower ended with the answer. */
async function concurrent(
  env: DevServer,
  fake: Fake,
  name: string,
  transport: StreamTransport,
): Promise<Record<string, string | number>> {
  const queue = `bench-concurrent-${name.replace(/\W/g, '')}`;
  const text = words(300)
    .split(' ')
    .map((w) => w.slice(0, 3).padEnd(4))
    .join('');
  for (let i = 0; i < streams; i++) fake.replies.push(reply.text(text, { chunkDelayMs: 10 }));
  const worker = await createWorker({
    team: team(fake),
    connection: env.nativeConnection,
    taskQueue: queue,
    streams: transport,
    worker: { maxConcurrentActivityTaskExecutions: streams },
  });
  return worker.runUntil(async () => {
    const baton = new Baton({ client: env.client, taskQueue: queue, streams: transport });
    const runs = await Promise.all(Array.from({ length: streams }, () => baton.start('writer', 'go')));
    let deltas = 0;
    let firstAt = Infinity;
    let lastAt = 0;
    const texts = await Promise.all(
      runs.map(async (run) => {
        let have = '';
        for await (const x of run.stream()) {
          if (x.kind !== 'text' && x.kind !== 'text_reset') continue;
          have = applyChange(have, x);
          if (x.kind === 'text' && !x.final) {
            deltas += 1;
            const now = performance.now();
            firstAt = Math.min(firstAt, now);
            lastAt = Math.max(lastAt, now);
          }
        }
        return have;
      }),
    );
    const seconds = (lastAt - firstAt) / 1000;
    return {
      transport: name,
      'deltas delivered': deltas,
      'deltas/s': round(deltas / seconds, 0),
      'model chunks/s': round((streams * text.length) / 4 / seconds, 0),
      'followers ending with the answer': `${texts.filter((t) => t === text).length}/${streams}`,
    };
  });
}

async function historyEvents(env: DevServer, fake: Fake): Promise<{ rows: Record<string, string | number>[] }> {
  const count = async (queue: string, body: string, chunkDelayMs: number, provider?: OpenAIProvider) => {
    fake.replies.push(reply.text(body, { chunkDelayMs }));
    const worker = await createWorker({
      team: team(fake),
      connection: env.nativeConnection,
      taskQueue: queue,
      ...(provider ? { providers: { openai: provider } } : {}),
    });
    return worker.runUntil(async () => {
      const run = await new Baton({ client: env.client, taskQueue: queue }).start('writer', 'go');
      for await (const _ of run.stream()) void _;
      return (await run.handle.fetchHistory()).events?.length ?? 0;
    });
  };
  const small = await count('bench-history-10', 'x'.repeat(40), 5);
  const large = await count('bench-history-1000', 'x'.repeat(4000), 1);
  const plain = await count('bench-history-plain', 'x'.repeat(4000), 1, new OpenAIProvider({ stream: false }));
  return {
    rows: [
      { answer: 'streamed in 10 chunks', events: small },
      { answer: 'streamed in 1,000 chunks', events: large, 'added per answer': large - plain },
      { answer: 'not streamed (stream: false)', events: plain },
    ],
  };
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
