/**
 * A chat whose worker is SIGKILLed mid-answer, on a real Temporal server with the text through
 * Redis: the AI SDK's `Chat` ends with exactly the answer history records, the message answered
 * once, and a client that reconnects mid-answer (`useChat`'s resume) gets the same answer.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Baton } from '../../src/client/baton';
import { serveBaton } from '../../src/server';
import { RedisStreams } from '../../src/streams/redis';
import { startRedis, type RedisServer } from '../helpers/redis';
import { taskQueue, useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { STATIC_TOKENS, TOKENS } from './service';
import { allTextOf, chatAt, lastAnswer, readChunks, settled, textOf } from './uiStream/client';
import { LONG_ANSWER } from './uiStream/killTeam';
import { TYPESCRIPT } from '../helpers/typescript';

const server = useTemporalServer();
const root = path.resolve(__dirname, '../..');
let redis: RedisServer;

beforeAll(async () => {
  redis = await startRedis();
}, 60_000);
afterAll(async () => {
  await redis?.stop();
});

/** A worker process for the queue; resolves once it polls. */
async function startWorker(queue: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...TYPESCRIPT, path.join(__dirname, 'uiStream/worker.ts')], {
    cwd: root,
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: server.env.address,
      CHAT_WORKER_QUEUE: queue,
      BATON_STREAMS_URL: redis.url,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (b: Buffer) => b.toString().includes('ready') && resolve());
    child.once('exit', (code, signal) =>
      reject(new Error(`the chat worker exited before it was ready (${code ?? signal})`)),
    );
  });
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await gone;
}

describe('a chat whose worker is lost mid-answer', () => {
  it('ends with exactly the recorded answer, answered once; a client reconnecting mid-answer gets it too', async () => {
    const queue = taskQueue();
    const streams = new RedisStreams({ url: redis.url });
    const baton = new Baton({ client: server.env.client, taskQueue: queue, streams });
    const service = await serveBaton({
      baton,
      auth: { tokens: STATIC_TOKENS },
      port: 0,
      host: '127.0.0.1',
      agents: ['support'],
      metrics: false,
      uiStream: { keepAliveMs: 200 },
    });
    const workers: ChildProcess[] = [await startWorker(queue)];
    try {
      const id = `ui-lost-${Date.now()}`;
      const chat = chatAt(service.url, TOKENS.ops, id, { agent: 'support' });
      const sending = chat.sendMessage({ text: 'My teapot arrived broken.' });
      // Some of the answer is on the screen: the worker goes, mid-answer.
      await waitFor(
        async () => chat.messages.at(-1),
        (m) => m?.role === 'assistant' && allTextOf(m).length > 10,
        30_000,
      );
      const shownBefore = allTextOf(chat.messages.at(-1)!);
      expect(LONG_ANSWER.startsWith(shownBefore) && shownBefore.length < LONG_ANSWER.length).toBe(true);
      await kill(workers[0]!);
      // A reload now: useChat's resume asks for the answer in progress.
      const resumed = await fetch(`${service.url}/v1/ui/conversations/${id}/stream`, {
        headers: { authorization: `Bearer ${TOKENS.viewer}` },
      });
      expect([resumed.status, resumed.headers.get('x-vercel-ai-ui-message-stream')]).toEqual([200, 'v1']);
      const reloaded = readChunks(resumed.body!);
      workers.push(await startWorker(queue));
      await sending;
      const messages = await settled(chat);
      const answer = lastAnswer(messages);
      expect(textOf(answer)).toBe(LONG_ANSWER);
      const { message: again } = await reloaded;
      expect(again?.id).toBe(answer.id);
      expect(textOf(again!)).toBe(LONG_ANSWER);

      const turns = await baton.conversation('support', { id }).history();
      expect(turns.map((t) => [t.message, t.output])).toEqual([['My teapot arrived broken.', LONG_ANSWER]]);
      // Nothing in progress any more: the resume route says so.
      expect(
        (
          await fetch(`${service.url}/v1/ui/conversations/${id}/stream`, {
            headers: { authorization: `Bearer ${TOKENS.viewer}` },
          })
        ).status,
      ).toBe(204);
    } finally {
      await service.close();
      for (const w of workers) await kill(w);
      await streams.close();
    }
  }, 180_000);
});
