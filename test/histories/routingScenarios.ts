/**
 * Capability routing among several specialists of one capability, by strategy: round robin (the
 * decision recorded in the memo) and least loaded (the figures read by a recorded activity too).
 */
import { defineAgent, scripted, Team } from '../../src';
import type { Scenario } from './scenarios';

function team(): Team {
  const ask = (task: string) => ({
    name: 'delegate_to_specialist',
    arguments: { specialist_type: 'refunds', task, reason: 'money' },
  });
  const desk = defineAgent({
    id: 'desk',
    instructions: 'Route.',
    model: scripted([{ toolCalls: [ask('refund order 1'), ask('refund order 2')] }, { text: 'both refunded' }]),
    routing: 'delegate',
  });
  const specialist = (id: string) =>
    defineAgent({
      id,
      description: 'Refunds',
      instructions: 'Refund.',
      model: scripted([{ text: `${id} refunded it` }]),
      profile: { specialization: 'refunds', capabilities: ['refund'] },
    });
  return new Team([desk, specialist('refunds-a'), specialist('refunds-b')]);
}

export const routingRoundRobinScenario: Scenario = {
  name: 'routing-round-robin',
  team,
  drive: async (b) => (await b.run('desk', 'two refunds', { routingStrategy: 'round_robin' })).workflowId,
};

export const routingLeastLoadedScenario: Scenario = {
  name: 'routing-least-loaded',
  team,
  drive: async (b) => (await b.run('desk', 'two refunds', { routingStrategy: 'least_loaded' })).workflowId,
};
