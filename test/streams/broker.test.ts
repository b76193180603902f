import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Baton, createWorker } from '../../src';
import { InProcessStreams } from '../../src/streams/memory';
import { RedisStreams, type RedisStreamsOptions } from '../../src/streams/redis';
import { reply, startOpenAIServer } from '../helpers/openaiServer';
import { startRedis } from '../helpers/redis';
import { taskQueue, useTemporalServer, withWorker } from '../helpers/temporal';
import { Viewer } from '../helpers/viewer';
import { waitFor } from '../helpers/wait';
import { streamTeam } from './fixtures/team';
import { TYPESCRIPT } from '../helpers/typescript';

const temporal = useTemporalServer();
const root = path.resolve(__dirname, '../..');
let fake: Awaited<ReturnType<typeof startOpenAIServer>>;
let redis: Awaited<ReturnType<typeof startRedis>>;
/** The transport's ACL user: only the stream commands, only on baton's keys; the password-less default user is off. */
const ACL = ['default off', 'baton on >otter-secret ~baton:stream:* +xadd +expire +xread +xrevrange'];
/** The server's URL with the ACL user, as workers and followers are given it. */
const withUser = (url: string) => url.replace('rediss://', 'rediss://baton:otter-secret@');
/** A transport on `server`: TLS with its self-signed certificate trusted, as the ACL user. */
const transport = (server: typeof redis, options: Partial<RedisStreamsOptions> = {}) =>
  new RedisStreams({ url: withUser(server.url), tls: { ca: server.ca! }, ...options });
beforeAll(async () => {
  [fake, redis] = await Promise.all([startOpenAIServer(), startRedis({ tls: true, users: ACL })]);
});
afterAll(async () => {
  await fake?.close();
  await redis?.stop();
});

const fastRetry = { initialInterval: '100 ms', maximumInterval: '200 ms' };
const words = (n: number) => Array.from({ length: n }, (_, i) => `otter${i}`).join(' ');

/** A process running the team's activities, publishing to Redis over TLS as the ACL user (its CA trusted through NODE_EXTRA_CA_CERTS). */
function activityWorker(queue: string): { ready: Promise<void>; kill: () => Promise<void> } {
  const child: ChildProcess = spawn(
    process.execPath,
    [...TYPESCRIPT, path.join(__dirname, 'fixtures/activityWorker.ts')],
    {
      cwd: root,
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: temporal.env.address,
        STREAM_QUEUE: queue,
        FAKE_OPENAI_URL: fake.url,
        BATON_STREAMS_URL: withUser(redis.url),
        NODE_EXTRA_CA_CERTS: redis.caFile!,
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

describe('streams through Redis (TLS, an ACL user), workers and followers in separate processes', () => {
  it('a follower ends with the recorded answer when the worker is SIGKILLed mid-stream, and resumes from its position', async () => {
    const queue = taskQueue();
    const answer = words(60);
    fake.replies.length = 0;
    fake.replies.push(reply.text(answer, { chunkDelayMs: 25 }), reply.text(answer, { chunkDelayMs: 5 }));
    const workflows = await createWorker({
      team: streamTeam(fake.url),
      connection: temporal.env.nativeConnection,
      taskQueue: queue,
      worker: { enableNonLocalActivities: false },
    });
    const first = activityWorker(queue);
    let second: ReturnType<typeof activityWorker> | undefined;
    const streams = transport(redis);
    try {
      await first.ready;
      const outcome = await workflows.runUntil(async () => {
        const baton = new Baton({ client: temporal.env.client, taskQueue: queue, streams });
        const run = await baton.start('expert', 'Tell me about otters', {
          heartbeatTimeout: '3 seconds',
          retry: fastRetry,
        });
        const viewer = new Viewer();
        const call = () => viewer.text(run.workflowId, 'expert#0') ?? '';
        let position = '';
        let killed = false;
        // The first follower: the worker dies once some text is out; it stops following after the restart's text starts.
        for await (const item of run.stream()) {
          viewer.apply(item);
          position = item.position;
          if (!killed && call().length > 40) {
            killed = true;
            await first.kill();
            second = activityWorker(queue);
            await second.ready;
          }
          if (viewer.resets.length > 0 && call().length > 20) break;
        }
        // A second follower goes on from where the first stopped, holding the text the first had.
        const kinds: string[] = [];
        for await (const item of run.stream({ after: position })) {
          viewer.apply(item);
          kinds.push(item.kind);
        }
        return { viewer, kinds, result: await run.result(), call: call() };
      });
      expect(outcome.result.output).toBe(answer);
      expect(outcome.call).toBe(answer);
      expect(outcome.viewer.resets.map((r) => r.reason)).toEqual(['retry']);
      expect(outcome.kinds.at(-1)).toBe('completed');
    } finally {
      await first.kill();
      await second?.kill();
      await streams.close();
    }
  }, 120_000);

  it("a follower of the top chain sees its specialist's text, across continue-as-new and a fault mid-stream; a late follower gets the same", async () => {
    const streams = transport(redis);
    const findings = `Otters: ${words(12)}.`;
    const final = `In short: ${words(20)}.`;
    fake.replies.length = 0;
    fake.replies.push(
      reply.toolCalls([
        { name: 'delegate', arguments: { to: 'expert', task: 'research otters', reason: 'expert knows' } },
      ]),
      reply.text(findings, { chunkDelayMs: 5 }),
      reply.text(final, { chunkDelayMs: 5, cutAfterChunks: 10 }),
      reply.text(final, { chunkDelayMs: 5 }),
    );
    try {
      await withWorker(
        temporal.env,
        streamTeam(fake.url),
        async (_, queue) => {
          const baton = new Baton({ client: temporal.env.client, taskQueue: queue, streams });
          const run = await baton.start('lead', 'What about otters?', {
            retry: fastRetry,
            continueAsNewAfterEvents: 20,
          });
          const live = new Viewer();
          const runs = new Set<string>();
          for await (const item of run.stream()) {
            live.apply(item);
            runs.add(item.runId);
          }
          const result = await run.result();
          const child = [...live.texts.keys()].map((k) => k.split(' ')).find(([wf]) => wf !== run.workflowId)!;
          expect(child[1]).toBe('expert#0');
          expect(live.text(child[0]!, 'expert#0')).toBe(findings);
          expect(live.text(run.workflowId, 'lead#1')).toBe(final);
          expect(result.output).toBe(final);
          expect(live.resets.map((r) => `${r.call} ${r.reason}`)).toEqual(['lead#1 retry']);
          expect(runs.size).toBeGreaterThan(1);

          const late = new Viewer();
          for await (const item of baton.getRun(run.workflowId).stream()) late.apply(item);
          expect(late.text(child[0]!, 'expert#0')).toBe(findings);
          expect(late.text(run.workflowId, 'lead#1')).toBe(final);

          // Looked up by id, with a transport that holds nothing: the chain is followed from its first run, its answers from history.
          const bare = new Viewer();
          const blank = new Baton({ client: temporal.env.client, taskQueue: queue, streams: new InProcessStreams() });
          for await (const item of blank.getRun(run.workflowId).stream()) bare.apply(item);
          expect(bare.text(child[0]!, 'expert#0')).toBe(findings);
          expect(bare.text(run.workflowId, 'lead#1')).toBe(final);
        },
        { streams },
      );
    } finally {
      await streams.close();
    }
  }, 120_000);

  it('refuses, saying why, a client without the ACL user, with a wrong password, or that does not trust the certificate', async () => {
    const delta = {
      workflowId: 'w',
      runId: 'r',
      agent: 'a',
      call: 'a#0',
      turn: 0,
      restart: 0,
      attempt: 1,
      offset: 0,
      text: 'otter',
    };
    const cases: [RedisStreams, RegExp][] = [
      [
        new RedisStreams({ url: redis.url, tls: { ca: redis.ca! }, onConnectionChange: () => undefined }),
        /refused the credentials \(NOAUTH/,
      ],
      [
        new RedisStreams({
          url: redis.url.replace('rediss://', 'rediss://baton:wrong@'),
          tls: { ca: redis.ca! },
          onConnectionChange: () => undefined,
        }),
        /refused the credentials \(WRONGPASS/,
      ],
      [new RedisStreams({ url: withUser(redis.url), onConnectionChange: () => undefined }), /certificate/],
    ];
    try {
      for (const [streams, why] of cases) await expect(streams.publish('refused', [delta])).rejects.toThrow(why);
      // Nothing in a message shows the password.
      await expect(cases[1]![0].publish('refused', [delta])).rejects.not.toThrow(/wrong/);
      // The ACL user may write baton's keys only.
      await expect(transport(redis, { prefix: 'other:' }).publish('x', [delta])).rejects.toThrow(
        /does not allow the ACL user/,
      );
    } finally {
      await Promise.all(cases.map(([s]) => s.close()));
    }
  });

  it('a follower falls back to history when the server stops mid-stream and says so once; the transport reconnects when the server is back', async () => {
    const server = await startRedis({ tls: true, users: ACL });
    const changes: boolean[] = [];
    const streams = transport(server, { onConnectionChange: (c) => changes.push(c.up) });
    const answer = words(80);
    fake.replies.length = 0;
    fake.replies.push(reply.text(answer, { chunkDelayMs: 25 }));
    try {
      await withWorker(
        temporal.env,
        streamTeam(fake.url),
        async (_, queue) => {
          const baton = new Baton({ client: temporal.env.client, taskQueue: queue, streams });
          const run = await baton.start('expert', 'Tell me about otters', { retry: fastRetry });
          const viewer = new Viewer();
          const kinds: string[] = [];
          let textBeforeStop = '';
          for await (const item of run.stream()) {
            viewer.apply(item);
            kinds.push(item.kind);
            if (!textBeforeStop && (viewer.text(run.workflowId, 'expert#0') ?? '').length > 40) {
              textBeforeStop = viewer.text(run.workflowId, 'expert#0')!;
              await server.stop();
            }
          }
          expect(textBeforeStop.length).toBeGreaterThan(40);
          expect(kinds.filter((k) => k === 'text_unavailable')).toHaveLength(1);
          // Told before the end; the answer still whole, from history.
          expect(kinds.indexOf('text_unavailable')).toBeLessThan(kinds.indexOf('completed'));
          expect(viewer.text(run.workflowId, 'expert#0')).toBe(answer);
          expect((await run.result()).output).toBe(answer);
        },
        { streams },
      );
      // The worker's transport said it lost the server, once.
      expect(changes).toEqual([false]);
      await server.restart();
      const delta = {
        workflowId: 'w',
        runId: 'r',
        agent: 'a',
        call: 'a#0',
        turn: 0,
        restart: 0,
        attempt: 1,
        offset: 0,
        text: 'back',
      };
      // The same transport, reconnected by the client: publishing works again, and it says the server is back.
      await waitFor(
        () =>
          streams.publish('back', [delta]).then(
            () => true,
            () => false,
          ),
        (ok) => ok,
        20_000,
      );
      expect(await streams.last('back')).toMatch(/^\d+-\d+$/);
      expect(changes).toEqual([false, true]);
    } finally {
      await streams.close();
      await server.stop();
    }
  }, 120_000);
});
