/**
 * The web chat's team: the support team (examples/support), with one change for a shop that has
 * a manager — a refund above $100 waits for the manager, not for whoever is chatting. The handoff
 * to refunds still waits for anyone who may decide approvals: in the chat, the person chatting.
 */
import { defineAgent, defineTool, Team } from 'baton-agents';
import { issueRefund, REFUND_APPROVAL_ABOVE, refundsAgent, team as support } from '../support/team';

/** The identity that decides refunds above $100. */
export const MANAGER = 'manager';

const refundDecidedByManager = defineTool({
  ...issueRefund,
  needsApproval: {
    when: { arg: 'amount', op: '>', value: REFUND_APPROVAL_ABOVE },
    approvers: [MANAGER],
    timeout: '10 minutes',
    onTimeout: 'reject',
  },
});

export const team = new Team(
  support.agents.map((a) =>
    a.id === refundsAgent.id
      ? defineAgent({ ...a, handoffs: a.handoffs && [...a.handoffs], tools: [refundDecidedByManager] })
      : a,
  ),
  { name: 'support' },
);
