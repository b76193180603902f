/**
 * The recorded chain whose decisions cross chains: a specialist reports what waits in it, and
 * decisions sent to the top chain are forwarded to it.
 */
import { defineAgent, delegate, scripted, Team } from '../../src';
import { approveHandoffSignal, childApprovalsSignal, decideHandoffUpdate } from '../../src/workflow';
import { scriptedAgent as agent } from '../helpers/agents';
import { hop, pending, type Scenario } from './scenarios';

/**
 * Decisions and reports across chains: a specialist (with the token its caller gave it) reports
 * the approvals waiting in it; a forged report is refused; decisions sent to the top chain for them
 * are forwarded, an update's refusal and outcome coming back from the specialist. Its specialists'
 * histories are recorded too.
 */
export const specialistDecisionsScenario: Scenario = {
  name: 'specialist-decisions',
  withSpecialists: true,
  team: () =>
    new Team([
      defineAgent({
        id: 'top',
        instructions: 'Top.',
        model: scripted([
          { toolCalls: [{ name: 'delegate', arguments: { to: 'leaf', task: 'open it', reason: 'leaf knows' } }] },
          { text: 'top done' },
        ]),
        handoffs: [delegate('leaf')],
      }),
      agent('leaf', [hop('vault', 'open the vault')], { handoffs: ['vault'] }),
      agent('vault', [hop('safe', 'open the safe')], { handoffs: ['safe'], approval: { approvers: ['alice'] } }),
      agent('safe', [{ text: 'safe opened' }], { approval: { approvers: ['alice'] } }),
    ]),
  drive: async (b) => {
    const run = await b.start('top', 'go');
    const first = await pending(run);
    const handle = run.handle;
    await handle.signal(childApprovalsSignal, {
      workflowId: `${run.workflowId}/leaf-1.1`,
      token: 'guessed',
      pending: [first],
    });
    await handle
      .executeUpdate(decideHandoffUpdate, {
        args: [{ handoffId: first.handoffId, approver: 'alice', decision: 'approve', callHash: 'abc' }],
      })
      .catch(() => undefined);
    await handle.signal(approveHandoffSignal, { handoffId: first.handoffId, approver: 'alice', comment: 'by signal' });
    let second = await pending(run);
    while (second.handoffId === first.handoffId) second = await pending(run);
    await handle.executeUpdate(decideHandoffUpdate, {
      args: [{ handoffId: second.handoffId, approver: 'alice', decision: 'approve', comment: 'by update' }],
    });
    await run.result();
    return run.workflowId;
  },
};
