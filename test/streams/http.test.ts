import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiveRecord } from '../../src/common/live';
import { waitFor } from '../helpers/wait';
import { reply, startOpenAIServer } from '../helpers/openaiServer';
import { useTemporalServer } from '../helpers/temporal';
import { Viewer } from '../helpers/viewer';
import { TOKENS, withService } from '../server/service';
import { connectSse } from '../server/sse';
import { streamTeam } from './fixtures/team';

const temporal = useTemporalServer();
let fake: Awaited<ReturnType<typeof startOpenAIServer>>;
beforeAll(async () => {
  fake = await startOpenAIServer();
});
afterAll(() => fake.close());

const words = (n: number) => Array.from({ length: n }, (_, i) => `otter${i}`).join(' ');

describe('streams over HTTP and from a conversation', () => {
  it('GET /v1/runs/{id}/stream resumes after Last-Event-ID; a streamed message and chat.stream() end with their replies', async () => {
    await withService(temporal.env, streamTeam(fake.url), async ({ service, baton, call }) => {
      const auth = { authorization: `Bearer ${TOKENS.viewer}` };
      const answer = words(30);
      fake.replies.push(reply.text(answer, { chunkDelayMs: 10 }));
      const run = await baton.start('expert', 'Tell me about otters');

      // A malformed Last-Event-ID is refused before the stream opens.
      const refused = await call('GET', `/v1/runs/${run.workflowId}/stream`, {
        token: TOKENS.viewer,
        headers: { 'last-event-id': 'not an id' },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.errors[0]).toMatchObject({ path: 'last-event-id' });

      const viewer = new Viewer();
      let last = '';
      const first = await connectSse(`${service.url}/v1/runs/${run.workflowId}/stream`, auth);
      expect(first.status).toBe(200);
      for await (const e of first.events) {
        viewer.apply(e.data as { kind: string });
        last = e.id!;
        if ((viewer.text(run.workflowId, 'expert#0') ?? '').length > 30) break;
      }
      first.close();
      const again = await connectSse(`${service.url}/v1/runs/${run.workflowId}/stream`, {
        ...auth,
        'last-event-id': last,
      });
      const kinds: string[] = [];
      for await (const e of again.events) {
        viewer.apply(e.data as { kind: string });
        kinds.push(e.event);
      }
      expect(viewer.text(run.workflowId, 'expert#0')).toBe(answer);
      expect(kinds.at(-1)).toBe('completed');
      expect(kinds).toContain('text');

      // A conversation message answered as Server-Sent Events.
      const said = words(20);
      fake.replies.push(reply.text(said, { chunkDelayMs: 10 }));
      const streamed = await connectSse(
        `${service.url}/v1/conversations/c-${run.workflowId}/messages`,
        { authorization: `Bearer ${TOKENS.ops}` },
        { agent: 'expert', message: 'hello', stream: true },
      );
      expect(streamed.status).toBe(200);
      const texts = new Viewer();
      const events: string[] = [];
      let replied: { output?: string } = {};
      for await (const e of streamed.events) {
        events.push(e.event);
        if (e.event === 'reply') replied = e.data as { output: string };
        else texts.apply(e.data as { kind: string });
      }
      expect(events.filter((e) => e === 'text').length).toBeGreaterThan(2);
      expect(events.at(-1)).toBe('reply');
      expect(replied.output).toBe(said);
      expect([...texts.texts.values()]).toEqual([said]);

      // The same conversation from the library: the text, then the reply.
      const more = words(15);
      fake.replies.push(reply.text(more, { chunkDelayMs: 10 }));
      const chat = baton.conversation('expert', { id: `c-${run.workflowId}` });
      const lib = new Viewer();
      let pieces = 0;
      let output: unknown;
      for await (const item of chat.stream('and more?')) {
        if (item.kind === 'reply') output = item.reply.output;
        else {
          lib.apply(item);
          if (item.kind === 'text' && !item.final) pieces += 1;
        }
      }
      expect(output).toBe(more);
      expect([...lib.texts.values()]).toEqual([more]);
      expect(pieces).toBeGreaterThan(2);
      expect((await chat.end()).turns).toBe(2);
    });
  });

  it('POST /v1/runs/{id}/steer interrupts as the caller; oversized and untimely messages are refused, over HTTP and by baton steer', async () => {
    await withService(temporal.env, streamTeam(fake.url), async ({ baton, call }) => {
      fake.replies.length = 0;
      fake.requests.length = 0;
      fake.replies.push(reply.text(words(80), { chunkDelayMs: 40 }), reply.text('Shorter.'));
      const run = await baton.start('expert', 'Tell me about otters');
      await waitFor(
        async () => fake.requests.length,
        (n) => n >= 1,
      );
      const big = await call('POST', `/v1/runs/${run.workflowId}/steer`, {
        token: TOKENS.ops,
        body: { text: 'x'.repeat(300 * 1024) },
      });
      expect(big.status).toBe(413);
      const viewerRefused = await call('POST', `/v1/runs/${run.workflowId}/steer`, {
        token: TOKENS.viewer,
        body: { text: 'hi' },
      });
      expect(viewerRefused.status).toBe(403);
      const taken = await call('POST', `/v1/runs/${run.workflowId}/steer`, {
        token: TOKENS.ops,
        body: { text: 'Be brief.', interrupt: true },
      });
      expect(taken.status).toBe(200);
      expect(taken.body).toMatchObject({ interrupted: true });
      expect((await run.result()).output).toBe('Shorter.');
      const audit = await run.handle.fetchHistory();
      const records = (audit.events ?? []).flatMap((e) => {
        const f = e.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields?.batonLive;
        return f ? [JSON.parse(Buffer.from(f.data!).toString()) as LiveRecord] : [];
      });
      expect(records.find((r) => r.type === 'steered')).toMatchObject({
        by: 'ops',
        text: 'Be brief.',
        interrupt: true,
      });

      const late = await call('POST', `/v1/runs/${run.workflowId}/steer`, {
        token: TOKENS.ops,
        body: { text: 'too late' },
      });
      expect(late.status).toBeGreaterThanOrEqual(400);
      const cli = await promisify(execFile)(
        process.execPath,
        ['bin/baton.js', 'steer', run.workflowId, 'too late', '--as', 'alice'],
        {
          cwd: path.resolve(__dirname, '../..'),
          env: { ...process.env, TEMPORAL_ADDRESS: temporal.env.address },
        },
      ).then(
        () => ({ code: 0, stderr: '' }),
        (err: { code: number; stderr: string }) => err,
      );
      expect(cli.code).toBe(1);
      expect(cli.stderr).toMatch(/baton steer: /);
    });
  });
});
