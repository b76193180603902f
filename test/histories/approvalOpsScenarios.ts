/**
 * Recorded histories of approval operations: a quorum decided by votes (one of them for another's
 * slot, by a grant), a question asked and answered before a typed rejection, and the notifications
 * a waiting call sends.
 */
import { defineAgent, scripted, Team } from '../../src';
import type { BatonRun } from '../../src/client/run';
import { signDelegation } from '../../src/client/signing/delegation';
import { scriptedAgent as agent } from '../helpers/agents';
import { keys, teamKeys } from '../helpers/signing';
import { waitFor } from '../helpers/wait';
import { httpReceiver } from '../notify/receivers';
import { toolApprovalTeam } from '../server/team';
import type { Scenario } from './scenarios';

const waiting = (run: BatonRun) =>
  waitFor(
    () => run.pendingApprovals(),
    (p) => p.length === 1,
  ).then((p) => p[0]!);

/** A handoff that waits for 2 of alice, bob and carol: alice signs her vote, dan votes for bob by bob's grant. */
export const approvalQuorumScenario: Scenario = {
  name: 'approval-quorum',
  withWorkflowId: true,
  team: () =>
    new Team(
      [
        defineAgent({
          id: 'triage',
          instructions: 'You are triage.',
          model: scripted([{ handoff: { to: 'refunds', message: 'refund order 42' } }]),
        }),
        agent('refunds', [{ text: 'refunded' }], {
          approval: { quorum: { of: ['alice', 'bob', 'carol'], needed: 2 } },
        }),
      ],
      { approverKeys: teamKeys },
    ),
  drive: async (b) => {
    const run = await b.start('triage', 'I want a refund');
    const p = await waiting(run);
    await b.approve(run.workflowId, {
      approvalId: p.handoffId,
      approver: 'alice',
      comment: 'fine',
      signer: keys.alice.signer,
    });
    const grant = await signDelegation(keys.bob.signer, {
      slot: 'bob',
      delegate: 'dan',
      until: Date.now() + 86400_000,
      workflowId: run.workflowId,
    });
    await b.approve(run.workflowId, { approvalId: p.handoffId, approver: 'dan', onBehalfOf: 'bob', delegation: grant });
    await run.result();
    return run.workflowId;
  },
};

/** A tool call an approver asks about, the requester answers, and the approver rejects with a typed reason. */
export const approvalQuestionsScenario: Scenario = {
  name: 'approval-questions',
  team: () =>
    new Team(toolApprovalTeam().agents, { rejectionReasons: [{ code: 'over_limit', label: 'Over the refund limit' }] }),
  drive: async (b) => {
    const run = await b.start('refunds', 'Refund order A1.');
    const p = await waiting(run);
    await b.ask(run.workflowId, { approvalId: p.handoffId, approver: 'alice', question: 'Why 250?' });
    await b.answer(run.workflowId, { approvalId: p.handoffId, answerer: 'desk', answer: 'Shipping included.' });
    await b.reject(run.workflowId, { approvalId: p.handoffId, approver: 'alice', reason: 'over_limit' });
    await run.result();
    return run.workflowId;
  },
};

let hook: Awaited<ReturnType<typeof httpReceiver>> | undefined;

/** A tool call that waits: its webhook notification goes out from an activity, then alice approves. */
export const approvalNotificationsScenario: Scenario = {
  name: 'approval-notifications',
  prepare: async () => {
    hook = await httpReceiver();
    return () => hook!.close();
  },
  team: () =>
    new Team(toolApprovalTeam().agents, {
      notifications: { webhooks: [{ url: hook!.url, secret: 'webhook-secret-0123456789' }] },
    }),
  drive: async (b) => {
    const run = await b.start('refunds', 'Refund order A1.');
    const p = await waiting(run);
    await waitFor(
      async () => hook!.received.length,
      (n) => n > 0,
    );
    await b.approve(run.workflowId, { approvalId: p.handoffId, approver: 'alice' });
    await run.result();
    return run.workflowId;
  },
};
