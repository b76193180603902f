import { defineAgent, scripted, Team } from '../../src';
import { scriptedAgent as agent } from '../helpers/agents';
import type { Scenario } from './scenarios';

/** A handoff whose policy marks it overdue, reassigns it, notifies someone and finally approves it on its own. */
export const approvalPoliciesScenario: Scenario = {
  name: 'approval-policies',
  team: () =>
    new Team([
      defineAgent({
        id: 'triage',
        instructions: 'You are triage.',
        model: scripted([{ handoff: { to: 'refunds', message: 'refund order 42' } }]),
      }),
      agent('refunds', [{ text: 'refunded' }], {
        approval: {
          approvers: ['alice'],
          dueIn: '1 second',
          escalation: [
            { after: '2 seconds', reassign: ['leads'] },
            { after: '3 seconds', notify: ['cto'] },
            { after: '4 seconds', decide: 'approve' },
          ],
        },
      }),
    ]),
  drive: async (b) => (await b.run('triage', 'I want a refund')).workflowId,
};
