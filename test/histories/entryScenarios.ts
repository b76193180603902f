/**
 * A recorded chain started at a gated agent (docs/authority.md, "Entry"): its entry waits for
 * alice's approval while refused decisions arrive (from someone who is not an approver, or for an
 * approval that waits nowhere), continues as new once `continueAsNewAfterEvents` more events came
 * in, carrying the wait, and runs once alice approves.
 */
import { Team, type Baton } from '../../src';
import { approveHandoffSignal } from '../../src/workflow';
import { scriptedAgent as agent } from '../helpers/agents';
import { nextApproval } from './auditScenarios';
import type { Scenario } from './scenarios';

/** The refused decisions sent, one at a time, so each arrives in a workflow task of its own. */
const REFUSED = 20;

async function runsOf(baton: Baton, workflowId: string): Promise<number> {
  let runs = 0;
  for await (const _ of baton.client.workflow.list({ query: `WorkflowId = "${workflowId}"` })) runs++;
  return runs;
}

export const entryWaitContinuedScenario: Scenario = {
  name: 'entry-wait-continued',
  team: () =>
    new Team([agent('vault', [{ text: 'vault opened' }], { approval: { approvers: ['alice'] } })], {
      name: 'vault',
      version: 'v1',
    }),
  drive: async (b) => {
    const run = await b.start('vault', 'open the vault', { continueAsNewAfterEvents: 20 });
    const entry = await nextApproval(run);
    for (let i = 0; i < REFUSED; i++) {
      const decision =
        i % 2 === 0
          ? { handoffId: entry.handoffId, approver: 'mallory' }
          : { handoffId: `nowhere-${i}`, approver: 'alice' };
      await run.handle.signal(approveHandoffSignal, decision);
      await new Promise((r) => setTimeout(r, 150));
    }
    const runs = await runsOf(b, run.workflowId);
    if (runs < 2) throw new Error(`entry-wait-continued: the entry's wait did not continue as new (${runs} run)`);
    const waiting = await nextApproval(run);
    await b.approve(run.workflowId, waiting.handoffId, { approver: 'alice' });
    const result = await run.result();
    if (result.output !== 'vault opened') throw new Error(`entry-wait-continued ended with ${JSON.stringify(result)}`);
    return run.workflowId;
  },
};
