/**
 * The remote team of the remote-delegation tests, served over A2A by `baton serve --team` in a
 * process of its own: `billing` hands a refund to `refunds`, whose handoffs alice approves; `broken`
 * fails at its first model call.
 */
import { defineAgent, scripted, Team } from '../../../src';
import { scriptedAgent } from '../../helpers/agents';

export const team = new Team([
  defineAgent({
    id: 'billing',
    instructions: 'You are billing.',
    // The remote task works a while before it waits for alice: long enough to lose a worker meanwhile.
    model: scripted([{ handoff: { to: 'refunds', message: 'Refund order 42: it arrived broken.' }, delayMs: 2_500 }]),
  }),
  scriptedAgent('refunds', [{ text: 'Refunded order 42.' }], { approval: { approvers: ['alice'] } }),
  scriptedAgent('broken', []),
]);
