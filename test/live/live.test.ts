import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defineAgent, handoff, openai, Team } from '../../src';
import { ConversationBusyError, InputTooLargeError, MessageRolledBackError, UserError } from '../../src/workflow';
import { formatTimeline } from '../../src/audit';
import { formatConversation } from '../../src/audit/conversationFormat';
import type { LiveRecord } from '../../src/common/live';
import { LIVE_MEMO } from '../../src/common/messages';
import { fromPayload } from '../../src/payloads/read';
import { reply, startOpenAIServer, type FakeRequest } from '../helpers/openaiServer';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { Viewer } from '../helpers/viewer';
import { waitFor } from '../helpers/wait';
import type { BatonRun } from '../../src/client/run';

const temporal = useTemporalServer();
let fake: Awaited<ReturnType<typeof startOpenAIServer>>;
beforeAll(async () => {
  fake = await startOpenAIServer();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.replies.length = 0;
  fake.requests.length = 0;
});

const words = (n: number, w = 'otter') => Array.from({ length: n }, (_, i) => `${w}${i}`).join(' ');
/** A long answer written slowly: a call still under way when the test acts. */
const slow = (text: string) => reply.text(text, { chunkDelayMs: 40 });

function team() {
  const model = openai('gpt-fake', { baseURL: fake.url, temperature: 0 });
  return new Team([
    defineAgent({ id: 'writer', instructions: 'Write.', model }),
    defineAgent({
      id: 'triage',
      instructions: 'You are triage.',
      model,
      handoffs: [handoff('refunds', { returnTo: 'caller' })],
    }),
    defineAgent({ id: 'refunds', description: 'Refunds', instructions: 'You are refunds.', model }),
  ]);
}

const userMessages = (r: FakeRequest | undefined) =>
  (r?.body.messages ?? []).filter((m) => m.role === 'user').map((m) => m.content);

async function liveRecords(run: BatonRun): Promise<LiveRecord[]> {
  const history = await run.handle.fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const field = e.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields?.[LIVE_MEMO];
    return field ? [fromPayload<LiveRecord>(field as never)] : [];
  });
}

describe('live chains', () => {
  it('an interrupt stops the model call at once and asks again with the message; a steering message waits for the answer and is applied after it', async () => {
    await withWorker(temporal.env, team(), async (baton) => {
      // Interrupt: the first answer is cut short, the model asked again with the message.
      fake.replies.push(slow(words(80)), reply.text('Short answer.'));
      const run = await baton.start('writer', 'Write about otters');
      const viewer = new Viewer();
      const following = (async () => {
        for await (const item of run.stream()) viewer.apply(item);
      })();
      await waitFor(
        async () => viewer.text(run.workflowId, 'writer#0') ?? '',
        (t) => t.length > 20,
      );
      await expect(baton.interrupt(run.workflowId, 'Shorter, please.', { by: '' })).rejects.toBeInstanceOf(UserError);
      await expect(baton.steer(run.workflowId, 'x'.repeat(300 * 1024), { by: 'bob' })).rejects.toBeInstanceOf(
        InputTooLargeError,
      );
      const receipt = await baton.interrupt(run.workflowId, 'Shorter, please.', { by: 'bob' });
      expect(receipt.interrupted).toBe(true);
      expect((await run.result()).output).toBe('Short answer.');
      await following;
      expect(viewer.text(run.workflowId, 'writer#0')).toBe('');
      expect(viewer.resets.map((r) => `${r.call} ${r.reason}`)).toEqual(['writer#0 stopped']);
      expect(viewer.text(run.workflowId, 'writer#1')).toBe('Short answer.');
      const asked = fake.requests[1]!.body.messages;
      expect(asked.map((m) => m.role)).toEqual(['system', 'user', 'user']);
      expect(userMessages(fake.requests[1])).toEqual(['Write about otters', 'Shorter, please.']);
      expect((await liveRecords(run)).map((r) => [r.type, 'by' in r ? r.by : ''])).toEqual([
        ['interrupted', 'bob'],
        ['steered', 'bob'],
      ]);
      const timeline = formatTimeline(await baton.audit(run.workflowId));
      expect(timeline).toMatch(/live\s+⏹ writer's model call writer#0 stopped by bob/);
      expect(timeline).toMatch(/live\s+✎ bob steered writer \(interrupting\): Shorter, please\./);

      // Steering: the answer under way finishes, then the model is asked again with the message.
      const first = words(30, 'river');
      fake.replies.push(slow(first), reply.text('Steered answer.'));
      const steered = await baton.start('writer', 'Write about rivers');
      await waitFor(
        async () => fake.requests.length,
        (n) => n >= 3,
      );
      expect((await baton.steer(steered.workflowId, 'Mention otters.', { by: 'alice' })).interrupted).toBe(false);
      expect((await steered.result()).output).toBe('Steered answer.');
      expect(fake.requests[3]!.body.messages.slice(-2)).toEqual([
        { role: 'assistant', content: first },
        { role: 'user', content: 'Mention otters.' },
      ]);
      expect((await liveRecords(steered)).map((r) => [r.type, 'by' in r ? r.by : ''])).toEqual([['steered', 'alice']]);
    });
  });

  it('a conversation refuses, interrupts with, or rolls back for a message that arrives mid-turn, and hands back to the caller', async () => {
    await withWorker(temporal.env, team(), async (baton) => {
      const chat = baton.conversation('writer');
      const midTurn = async (n: number) =>
        waitFor(
          async () => fake.requests.length,
          (len) => len >= n,
        );

      // reject
      fake.replies.push(slow(words(25)));
      const one = chat.send('first');
      await midTurn(1);
      await expect(chat.send('second', { midTurn: 'reject' })).rejects.toBeInstanceOf(ConversationBusyError);
      expect((await one).output).toBe(words(25));

      // interrupt: both messages answered together
      fake.replies.push(slow(words(60)), reply.text('Both answered.'));
      const three = chat.send('third');
      await midTurn(2);
      const four = await chat.send('fourth', { midTurn: 'interrupt' });
      expect(four.output).toBe('Both answered.');
      expect((await three).output).toBe('Both answered.');
      expect(four.turn).toBe((await three).turn);
      expect(userMessages(fake.requests[2])).toEqual(['first', 'third', 'fourth']);

      // rollback: the running turn is discarded and the new message answered instead
      fake.replies.push(slow(words(60)), reply.text('Only the sixth.'));
      const five = chat.send('fifth').then(
        () => undefined,
        (err: unknown) => err,
      );
      await midTurn(4);
      const six = await chat.send('sixth', { midTurn: 'rollback' });
      expect(six.output).toBe('Only the sixth.');
      expect(await five).toBeInstanceOf(MessageRolledBackError);
      expect(userMessages(fake.requests[4])).toEqual(['first', 'third', 'fourth', 'sixth']);

      const audit = await chat.audit();
      expect(audit.live.map((r) => r.type)).toEqual([
        'message_rejected',
        'message_interrupted',
        'interrupted',
        'steered',
        'turn_rolled_back',
      ]);
      const timeline = formatConversation(audit);
      expect(timeline).toMatch(/✗ message \S+ refused while turn 1 was answered \(midTurn: reject\)/);
      expect(timeline).toMatch(/⏹ message \S+ interrupted turn 2 and is answered with it \(midTurn: interrupt\)/);
      expect(timeline).toMatch(/↶ turn 3 rolled back for message \S+ \(midTurn: rollback\)/);

      // hand-back: refunds answers, triage takes the next message
      const desk = baton.conversation('triage');
      fake.replies.push(
        reply.toolCalls([{ name: 'handoff', arguments: { to: 'refunds', message: 'refund order 42' } }]),
        reply.text('Refunded.'),
        reply.text('Anything else?'),
      );
      const refunded = await desk.send('Refund order 42');
      expect(refunded).toMatchObject({ agent: 'refunds', output: 'Refunded.', handedBackTo: 'triage' });
      const next = await desk.send('Thanks');
      expect(next.agent).toBe('triage');
      expect(fake.requests.at(-1)!.body.messages[0]).toEqual({ role: 'system', content: 'You are triage.' });
      const back = await desk.audit();
      expect(back.live).toEqual([
        expect.objectContaining({
          type: 'handed_back',
          afterTurn: 1,
          from: 'refunds',
          to: 'triage',
          returnTo: 'caller',
        }),
      ]);
      expect(formatConversation(back)).toMatch(/↩ refunds hands the conversation back to triage \(returnTo: caller\)/);
    });
  });

  it('a message that interrupted a turn, sent again with its key while the turn runs and after the end, gets that turn’s one reply and interrupts once', async () => {
    await withWorker(temporal.env, team(), async (baton) => {
      const chat = baton.conversation('writer');
      fake.replies.push(slow(words(60)), slow(words(40, 'both')));
      const one = chat.send('first');
      await waitFor(
        async () => fake.requests.length,
        (len) => len >= 1,
      );
      const sent = { idempotencyKey: 'interrupting', midTurn: 'interrupt' as const };
      const two = chat.send('second', sent);
      await waitFor(
        async () => fake.requests.length,
        (len) => len >= 2,
      );
      // The turn is still being written: the message sent again waits for it, and asks the model nothing more.
      const again = await chat.send('second', sent);
      expect(again).toEqual(await two);
      expect(again.output).toBe(words(40, 'both'));
      expect((await one).turn).toBe(again.turn);
      expect(fake.requests).toHaveLength(2);
      expect(userMessages(fake.requests[1])).toEqual(['first', 'second']);
      expect((await chat.audit()).live.filter((r) => r.type === 'message_interrupted')).toHaveLength(1);
      await chat.end();
      expect(await chat.send('second', sent)).toEqual(again);
    });
  });
});
