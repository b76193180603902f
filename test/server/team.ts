/** The server tests' team: triage hands off to refunds, whose handoffs alice must approve. */
import { z } from 'zod';
import { defineAgent, defineTool, scripted, Team } from '../../src';
import { scriptedAgent } from '../helpers/agents';

export const lookupOrder = defineTool({
  name: 'lookupOrder',
  description: 'Look up an order',
  parameters: z.object({ orderId: z.string() }),
  execute: ({ orderId }) => ({ orderId, status: 'delivered' }),
});

/** triage → refunds (approval by alice) → lookupOrder → answer; a rejected handoff gets triage's answer. */
export function refundTeam(): Team {
  return new Team([
    defineAgent({
      id: 'triage',
      instructions: 'You are triage.',
      model: scripted({
        steps: [{ handoff: { to: 'refunds', message: 'Refund order 42: it arrived broken.' } }],
        rules: [{ whenIncludes: 'rejected', reply: { text: 'Your refund was not approved.' } }],
      }),
    }),
    scriptedAgent(
      'refunds',
      [{ toolCalls: [{ name: 'lookupOrder', arguments: { orderId: '42' } }] }, { text: 'Refunded order 42.' }],
      {
        tools: [lookupOrder],
        approval: { approvers: ['alice'] },
      },
    ),
  ]);
}

/** A tool whose every call alice must approve; it answers with what it would refund. */
export const issueRefund = defineTool({
  name: 'issueRefund',
  description: 'Refund an order',
  parameters: z.object({ orderId: z.string(), amount: z.number() }),
  needsApproval: { approvers: ['alice'] },
  execute: ({ orderId, amount }) => ({ orderId, refunded: amount }),
});

/** refunds calls issueRefund({orderId: 'A1', amount: 250}), which waits for alice, then answers. */
export function toolApprovalTeam(): Team {
  return new Team([
    scriptedAgent(
      'refunds',
      [{ toolCalls: [{ name: 'issueRefund', arguments: { orderId: 'A1', amount: 250 } }] }, { text: 'Refund issued.' }],
      {
        tools: [issueRefund],
      },
    ),
  ]);
}
