/**
 * `baton run`'s model text as it forms (`follow` with `write`): a retried call's text is dropped
 * with a note, also when its line was closed before the retry's text came, as when the worker
 * running the call is lost (SIGKILLed) and the call is started again after its heartbeat timeout.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Baton, createWorker } from '../../src';
import { follow } from '../../src/cli/follow';
import { LiveText } from '../../src/cli/liveText';
import { RedisStreams } from '../../src/streams/redis';
import { reply, startOpenAIServer } from '../helpers/openaiServer';
import { startRedis } from '../helpers/redis';
import { taskQueue, useTemporalServer } from '../helpers/temporal';
import { streamTeam } from '../streams/fixtures/team';
import { TYPESCRIPT } from '../helpers/typescript';

const temporal = useTemporalServer();
const root = path.resolve(__dirname, '../..');
let fake: Awaited<ReturnType<typeof startOpenAIServer>>;
let redis: Awaited<ReturnType<typeof startRedis>>;
beforeAll(async () => {
  [fake, redis] = await Promise.all([startOpenAIServer(), startRedis()]);
});
afterAll(async () => {
  await fake?.close();
  await redis?.stop();
});

const words = (n: number) => Array.from({ length: n }, (_, i) => `otter${i}`).join(' ');
const piece = (offset: number, text: string) => ({
  kind: 'text' as const,
  workflowId: 'wf',
  agent: 'expert',
  call: 'expert#0',
  turn: 0,
  offset,
  text,
});
const reset = {
  kind: 'text_reset' as const,
  workflowId: 'wf',
  agent: 'expert',
  call: 'expert#0',
  turn: 0,
  reason: 'retry' as const,
};

/** A process running the stream team's activities, publishing to Redis (test/streams/fixtures/activityWorker.ts). */
function activityWorker(queue: string): { ready: Promise<void>; kill: () => Promise<void> } {
  const child: ChildProcess = spawn(
    process.execPath,
    [...TYPESCRIPT, path.join(root, 'test/streams/fixtures/activityWorker.ts')],
    {
      cwd: root,
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: temporal.env.address,
        STREAM_QUEUE: queue,
        FAKE_OPENAI_URL: fake.url,
        BATON_STREAMS_URL: redis.url,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve();
    });
    child.once('exit', (code, signal) =>
      reject(new Error(`the activity worker exited before it was ready (${code ?? signal})`)),
    );
  });
  return {
    ready,
    kill: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await gone;
    },
  };
}

describe("baton run's model text", () => {
  it('notes a retry of a call whose line was closed, and writes the new try on a line of its own', () => {
    let out = '';
    const text = new LiveText((t) => (out += t));
    text.apply(piece(0, 'otter0 otter1'));
    text.end();
    text.apply(reset);
    text.apply(piece(0, 'otter0'));
    text.end();
    expect(out).toBe(
      '  expert: otter0 otter1\n  (expert: the model call was tried again; its text above is dropped)\n  expert: otter0\n',
    );
  });

  it("drops a lost worker's partial text with a note when the call is started again", async () => {
    const queue = taskQueue();
    const answer = words(60);
    fake.replies.length = 0;
    // Spare answers for a new worker process that misses the 1 s heartbeat while it warms up on a loaded
    // machine (the full suite has taken two such restarts): each is another restart, with the same end.
    fake.replies.push(
      reply.text(answer, { chunkDelayMs: 25 }),
      ...Array.from({ length: 5 }, () => reply.text(answer, { chunkDelayMs: 5 })),
    );
    const workflows = await createWorker({
      team: streamTeam(fake.url),
      connection: temporal.env.nativeConnection,
      taskQueue: queue,
      worker: { enableNonLocalActivities: false },
    });
    const first = activityWorker(queue);
    let second: ReturnType<typeof activityWorker> | undefined;
    const streams = new RedisStreams({ url: redis.url });
    let out = '';
    try {
      await first.ready;
      await workflows.runUntil(async () => {
        const baton = new Baton({ client: temporal.env.client, taskQueue: queue, streams });
        const run = await baton.start('expert', 'Tell me about otters', {
          heartbeatTimeout: '1 second',
          retry: { initialInterval: '100 ms', maximumInterval: '200 ms' },
        });
        const lines: string[] = [];
        let killed = false;
        const write = (t: string) => {
          out += t;
          // The worker dies once part of the answer is on screen.
          if (!killed && out.includes('otter10')) {
            killed = true;
            void first.kill().then(() => {
              second = activityWorker(queue);
            });
          }
        };
        const result = await follow(run, (line) => lines.push(line), { write });
        expect(result.output).toBe(answer);
      });
      // The first try's text, then the note that drops it, then the new try's whole text.
      expect(out).toMatch(/^ {2}expert: otter0 otter1 .*otter10/);
      expect(out).toContain('(expert: the model call was tried again; its text above is dropped)\n');
      expect(out.slice(out.indexOf('tried again'))).toContain(`expert: ${answer}\n`);
    } finally {
      await first.kill();
      await second?.kill();
      await streams.close();
    }
  }, 120_000);
});
