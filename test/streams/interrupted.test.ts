/**
 * A conversation message followed live whose model call an interrupt stops: the stopped call's text
 * is dropped when the reply comes (`text_reset`, reason `stopped`), from the library and over HTTP,
 * so a viewer ends with the reply's text only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Baton } from '../../src';
import { reply, startOpenAIServer } from '../helpers/openaiServer';
import { useTemporalServer } from '../helpers/temporal';
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
  await waitFor(async () => viewer.text(id, call) ?? '', (t) => t.length > 20);
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
      const streamed = await connectSse(`${service.url}/v1/conversations/${chat.id}/messages`, { authorization: `Bearer ${TOKENS.ops}` }, { agent: 'expert', message: 'And rivers?', stream: true });
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
});
