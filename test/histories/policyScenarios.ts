/**
 * A recorded policy update: a chain waits for bob's approval of the handoff into mailer under v1
 * (sendEmail free), takes v2's policy (sendEmail needs alice) by the `tightenPolicy` update, and
 * its email then waits for alice.
 */
import { z } from 'zod';
import { defineTool, Team } from '../../src';
import { teamPolicyOf } from '../../src/common/authority/policyUpdate';
import { tightenPolicyUpdate } from '../../src/common/messages';
import { scriptedAgent as agent } from '../helpers/agents';
import type { Scenario } from './scenarios';

function mailTeam(v2: boolean): Team {
  const sendEmail = defineTool({
    name: 'sendEmail',
    description: 'Send an email',
    parameters: z.object({ to: z.string() }),
    ...(v2 ? { needsApproval: { approvers: ['alice'] } } : {}),
    execute: ({ to }) => `sent to ${to}`,
  });
  return new Team(
    [
      agent('desk', [{ handoff: { to: 'mailer', message: 'email the customer' } }], { handoffs: ['mailer'] }),
      agent(
        'mailer',
        [{ toolCalls: [{ name: 'sendEmail', arguments: { to: 'customer@example.com' } }] }, { text: 'emailed' }],
        { tools: [sendEmail], approval: { approvers: ['bob'] } },
      ),
    ],
    { name: 'mail', version: v2 ? 'v2' : 'v1' },
  );
}

const until = async <T>(read: () => Promise<T>, done: (v: T) => boolean): Promise<T> => {
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
};

export const policyUpdateScenario: Scenario = {
  name: 'policy-update',
  team: () => mailTeam(false),
  drive: async (b) => {
    const run = await b.start('desk', 'tell the customer');
    const [handoff] = await until(
      () => run.pendingApprovals(),
      (p) => p.length === 1,
    );
    await run.handle.executeUpdate(tightenPolicyUpdate, {
      args: [{ policy: teamPolicyOf(mailTeam(true).spec()), appliedBy: 'ops:carol', reason: 'v2 rollout' }],
    });
    await b.approve(run.workflowId, handoff!.handoffId, { approver: 'bob' });
    const [email] = await until(
      () => run.pendingApprovals(),
      (p) => p.length === 1 && p[0]!.to === 'tool:sendEmail',
    );
    await b.approve(run.workflowId, email!.handoffId, { approver: 'alice' });
    await run.result();
    return run.workflowId;
  },
};
