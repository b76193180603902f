/**
 * Recorded histories of live chains (the `baton-live` patch): a chain interrupted and steered, and
 * a conversation whose messages arrive mid-turn under each policy, with a hand-back.
 */
import { handoff, Team, type Baton } from '../../src';
import type { ConversationReply } from '../../src/workflow';
import { scriptedAgent as agent } from '../helpers/agents';
import type { Scenario } from './scenarios';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const settled = <T>(p: Promise<T>) =>
  p.then(
    (v) => v,
    (e: unknown) => e,
  );

export const steeredChainScenario: Scenario = {
  name: 'live-steered-chain',
  team: () =>
    new Team([
      agent('writer', [
        { text: 'a long first draft', delayMs: 3000 },
        { text: 'a shorter draft', delayMs: 3000 },
        { text: 'the final draft, with otters' },
      ]),
    ]),
  drive: async (baton: Baton) => {
    const run = await baton.start('writer', 'Write about rivers');
    await pause(1000);
    await baton.interrupt(run.workflowId, 'Shorter, please.', { by: 'bob' });
    await pause(1000);
    await baton.steer(run.workflowId, 'Mention otters.', { by: 'alice' });
    await run.result();
    return run.workflowId;
  },
};

export const liveConversationScenario: Scenario = {
  name: 'live-conversation',
  team: () =>
    new Team([
      agent(
        'triage',
        [
          { handoff: { to: 'refunds', message: 'refund order 42' } },
          { text: 'a long hello', delayMs: 3000 },
          { text: 'hello to both' },
          { text: 'a slow answer', delayMs: 3000 },
          { text: 'only the sixth' },
        ],
        { handoffs: [handoff('refunds', { returnTo: 'caller' })] },
      ),
      agent('refunds', [{ text: 'Refunded.', delayMs: 3000 }], { description: 'Refunds' }),
    ]),
  drive: async (baton: Baton) => {
    const chat = baton.conversation('triage');
    const first = chat.send('refund order 42', { idempotencyKey: 'one' });
    await pause(1500);
    await settled(chat.send('are you there?', { idempotencyKey: 'two', midTurn: 'reject' }));
    const refunded: ConversationReply = await first;
    if (refunded.handedBackTo !== 'triage')
      throw new Error(`expected a hand-back to triage, got ${JSON.stringify(refunded)}`);
    const three = chat.send('hello', { idempotencyKey: 'three' });
    await pause(1000);
    await chat.send('hello again', { idempotencyKey: 'four', midTurn: 'interrupt' });
    await three;
    const five = settled(chat.send('a question', { idempotencyKey: 'five' }));
    await pause(1000);
    await chat.send('another question', { idempotencyKey: 'six', midTurn: 'rollback' });
    await five;
    await chat.end();
    return chat.id;
  },
};
