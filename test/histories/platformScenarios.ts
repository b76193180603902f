/** Scenarios of how a chain sits on the platform: its task priority and fairness key. */
import { z } from 'zod';
import { defineAgent, defineTool, delegate, scripted, Team } from '../../src';
import { scriptedAgent as agent } from '../helpers/agents';
import type { Scenario } from './scenarios';

/** A chain with a priority and a tenant's fairness key: its calls, its tool and its specialist are dispatched with them. */
export const priorityScenario: Scenario = {
  name: 'priority',
  withSpecialists: true,
  team: () => {
    const lookup = defineTool({
      name: 'lookup',
      description: 'Look an order up',
      parameters: z.object({ orderId: z.string() }),
      execute: ({ orderId }) => `order ${orderId}: shipped`,
    });
    return new Team([
      defineAgent({
        id: 'triage',
        instructions: 'Generalist.',
        tools: [lookup],
        model: scripted([
          { toolCalls: [{ name: 'lookup', arguments: { orderId: '42' } }] },
          {
            toolCalls: [{ name: 'delegate', arguments: { to: 'notes', task: 'note it', reason: 'notes keeps notes' } }],
          },
          { text: 'Order 42 shipped; noted.' },
        ]),
        handoffs: [delegate('notes')],
      }),
      agent('notes', [{ text: 'noted' }]),
    ]);
  },
  drive: async (b) =>
    (
      await b.run('triage', 'where is order 42?', {
        priority: { priorityKey: 2, fairnessKey: 'tenant-a', fairnessWeight: 2 },
      })
    ).workflowId,
};
