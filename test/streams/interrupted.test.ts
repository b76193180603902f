/**
 * A conversation message followed live whose model call an interrupt stops: the stopped call's text
 * is dropped when the reply comes (`text_reset`, reason `stopped`), from the library and over HTTP,
 * so a viewer ends with the reply's text only — also when the conversation continued as new
 * between the interrupt and the reply.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineAgent, handoff, openai, Team, type Baton } from '../../src';
import { approveHandoffSignal } from '../../src/workflow';
import { reply, startOpenAIServer } from '../helpers/openaiServer';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { Viewer } from '../helpers/viewer';
import { waitFor } from '../helpers/wait';
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

/** Interrupt conversation `id` once `viewer` shows more than 20 characters of its call `call`. */
async function interruptWhenWriting(baton: Baton, viewer: Viewer, id: string, call: string): Promise<void> {
  await waitFor(
    async () => viewer.text(id, call) ?? '',
    (t) => t.length > 20,
  );
  expect((await baton.interrupt(id, 'Shorter, please.', { by: 'bob' })).interrupted).toBe(true);
}

/** The text a viewer shows, call by call (a call whose text was dropped shows none). */
const shown = (viewer: Viewer) => [...viewer.texts.values()].filter((text) => text !== '');

describe('a streamed conversation message whose model call an interrupt stopped', () => {
  it("drops the stopped call's text when the reply comes, from chat.stream() and over HTTP", async () => {
    await withService(temporal.env, streamTeam(fake.url), async ({ service, baton }) => {
      fake.replies.push(reply.text(words(80), { chunkDelayMs: 40 }), reply.text('Short answer.'));
      const chat = baton.conversation('expert');
      const lib = new Viewer();
      let output: unknown;
      const following = (async () => {
        for await (const item of chat.stream('Tell me about otters')) {
          if (item.kind === 'reply') output = item.reply.output;
          else lib.apply(item);
        }
      })();
      await interruptWhenWriting(baton, lib, chat.id, 'expert#0');
      await following;
      expect(output).toBe('Short answer.');
      expect(lib.resets.map((r) => `${r.call} ${r.reason}`)).toEqual(['expert#0 stopped']);
      expect(shown(lib)).toEqual(['Short answer.']);

      // The same over HTTP: the message's Server-Sent Events.
      fake.replies.push(reply.text(words(80), { chunkDelayMs: 40 }), reply.text('Shorter still.'));
      const http = new Viewer();
      const streamed = await connectSse(
        `${service.url}/v1/conversations/${chat.id}/messages`,
        { authorization: `Bearer ${TOKENS.ops}` },
        { agent: 'expert', message: 'And rivers?', stream: true },
      );
      expect(streamed.status).toBe(200);
      let replied: { output?: string } = {};
      const reading = (async () => {
        for await (const e of streamed.events) {
          if (e.event === 'reply') replied = e.data as { output: string };
          else http.apply(e.data as { kind: string });
        }
      })();
      await interruptWhenWriting(baton, http, chat.id, 'expert#2');
      await reading;
      expect(replied.output).toBe('Shorter still.');
      expect(http.resets.map((r) => `${r.call} ${r.reason}`)).toEqual(['expert#2 stopped']);
      expect(shown(http)).toEqual(['Shorter still.']);
    });
  });

  it("drops the stopped call's text when the conversation continued as new between the interrupt and the reply", async () => {
    const model = openai('gpt-fake', { baseURL: fake.url, temperature: 0 });
    const team = new Team([
      defineAgent({
        id: 'writer',
        instructions: 'Write, or hand refunds over.',
        model,
        handoffs: [handoff('refunds')],
      }),
      defineAgent({
        id: 'refunds',
        description: 'Refunds',
        instructions: 'Refund.',
        model,
        approval: { approvers: ['alice'] },
      }),
    ]);
    await withWorker(temporal.env, team, async (baton) => {
      // The stopped call, then a handoff that waits for alice (the run continues as new meanwhile), then the reply.
      fake.replies.push(
        reply.text(words(80), { chunkDelayMs: 40 }),
        reply.toolCalls([{ name: 'handoff', arguments: { to: 'refunds', message: 'refund it' } }]),
        reply.text('Refunded.'),
      );
      const chat = baton.conversation('writer', { options: { continueAsNewAfterEvents: 20 } });
      const viewer = new Viewer();
      let output: unknown;
      const following = (async () => {
        for await (const item of chat.stream('Refund order 7')) {
          if (item.kind === 'reply') output = item.reply.output;
          else viewer.apply(item);
        }
      })();
      await interruptWhenWriting(baton, viewer, chat.id, 'writer#0');
      const [pending] = await waitFor(
        () =>
          chat.status().then(
            (v) => v.pendingApprovals,
            () => [],
          ),
        (p) => p.length === 1,
      );
      const before = (await chat.handle.describe()).runId;
      for (let i = 0; i < 40 && (await chat.handle.describe()).runId === before; i++)
        await chat.handle.signal(approveHandoffSignal, { handoffId: pending!.handoffId, approver: 'mallory' });
      expect((await chat.handle.describe()).runId).not.toBe(before);
      await waitFor(
        () =>
          chat.status().then(
            (v) => v.pendingApprovals,
            () => [],
          ),
        (p) => p.length === 1,
      );
      await baton.approve(chat.id, pending!.handoffId, { approver: 'alice' });
      await following;
      expect(output).toBe('Refunded.');
      expect(viewer.resets.map((r) => `${r.call} ${r.reason}`)).toEqual(['writer#0 stopped']);
      expect(shown(viewer)).toEqual(['Refunded.']);
    });
  });
});
