/**
 * A conversation message followed through a transport that delivers late (a loaded broker, a slow
 * network): the reply comes before the text its specialist wrote has all arrived. The follower reads
 * the transport up to where it stood when the reply came, so every call's text ends whole — and,
 * when the transport never catches up, the reply still ends the stream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Baton } from '../../src';
import { InProcessStreams, type StreamEntry, type StreamTransport, type TextDelta } from '../../src/streams';
import { reply, startOpenAIServer } from '../helpers/openaiServer';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { Viewer } from '../helpers/viewer';
import { waitFor } from '../helpers/wait';
import { streamTeam } from './fixtures/team';

const temporal = useTemporalServer();
let fake: Awaited<ReturnType<typeof startOpenAIServer>>;
beforeAll(async () => {
  fake = await startOpenAIServer();
});
afterAll(() => fake.close());

/** `inner`, its reads held until `release` resolves; with `stallAfter`, reads stop delivering after that many batches. */
class LaggingStreams implements StreamTransport {
  constructor(
    private readonly inner: StreamTransport,
    private readonly release: Promise<unknown>,
    private readonly stallAfter = Infinity,
  ) {}
  publish(topic: string, deltas: TextDelta[]): Promise<void> {
    return this.inner.publish(topic, deltas);
  }
  last(topic: string): Promise<string | undefined> {
    return this.inner.last(topic);
  }
  async *read(topic: string, cursor: string | undefined, signal: AbortSignal): AsyncIterable<StreamEntry[]> {
    let batches = 0;
    const aborted = new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    for await (const entries of this.inner.read(topic, cursor, signal)) {
      await Promise.race([this.release, aborted]);
      if (++batches > this.stallAfter) await aborted;
      if (signal.aborted) return;
      yield entries;
    }
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

const words = (n: number) => Array.from({ length: n }, (_, i) => `otter${i}`).join(' ');

describe('a conversation message followed through a transport that delivers late', () => {
  it("ends with the whole text of every call that answered it, the specialist's too", async () => {
    const streams = new InProcessStreams();
    await withWorker(
      temporal.env,
      streamTeam(fake.url),
      async (baton) => {
        const expertSays = words(20);
        fake.replies.push(
          reply.toolCalls([{ name: 'delegate', arguments: { to: 'expert', task: 'otters', reason: 'knows otters' } }]),
          reply.text(expertSays, { chunkDelayMs: 5 }),
          reply.text('They hold hands.'),
        );
        // The text arrives only once the conversation has answered: after the reply, as a loaded broker may deliver it.
        const answered = waitFor(
          () =>
            baton
              .conversation('lead', { id: 'lagging-1' })
              .status()
              .then(
                (s) => (s.turns >= 1 && s.status === 'idle' ? 'answered' : s.status),
                () => 'none',
              ),
          (s) => s === 'answered',
          60_000,
        );
        const lagging = new Baton({
          client: temporal.env.client,
          taskQueue: baton.taskQueue,
          streams: new LaggingStreams(streams, answered),
        });
        const chat = lagging.conversation('lead', { id: 'lagging-1' });
        const viewer = new Viewer();
        let output: unknown;
        for await (const item of chat.stream('Tell me about otters')) {
          if (item.kind === 'reply') output = item.reply.output;
          else viewer.apply(item);
        }
        expect(output).toBe('They hold hands.');
        const expert = [...viewer.texts.entries()].filter(([key]) => key.endsWith(' expert#0'));
        expect(expert.map(([, text]) => text)).toEqual([expertSays]);
        expect(viewer.text(chat.id, 'lead#1')).toBe('They hold hands.');
      },
      { streams },
    );
  });

  it('ends with the reply when the transport never catches up', async () => {
    const streams = new InProcessStreams();
    await withWorker(
      temporal.env,
      streamTeam(fake.url),
      async (baton) => {
        fake.replies.push(reply.text(words(30), { chunkDelayMs: 5 }));
        const stalled = new Baton({
          client: temporal.env.client,
          taskQueue: baton.taskQueue,
          streams: new LaggingStreams(streams, Promise.resolve(), 1),
        });
        const chat = stalled.conversation('expert');
        const viewer = new Viewer();
        const items: string[] = [];
        for await (const item of chat.stream('Tell me about otters')) {
          items.push(item.kind);
          if (item.kind !== 'reply') viewer.apply(item);
        }
        expect(items.at(-1)).toBe('reply');
        expect(viewer.text(chat.id, 'expert#0')).toBe(words(30));
      },
      { streams },
    );
  });
});
