/**
 * A chain replayed after failing right after people decided: desk's handoff to refunds is
 * rejected by alice (under a policy that approves at its deadline), desk's next model call (a local
 * one) fails, and `baton replay` resumes from the rebuilt state with the rejection carried, so the
 * turn is answered with it instead of asking again. Two runs: the failed one and the replay's.
 */
import { ApplicationFailure } from '@temporalio/common';
import { Team } from '../../src';
import type { ModelProviders } from '../../src/models/provider';
import { ScriptedProvider } from '../../src/models/scripted';
import { scriptedAgent as agent } from '../helpers/agents';
import { nextApproval } from './auditScenarios';
import type { Scenario } from './scenarios';

let providerDown = false;

export const replayKeepsDecisionScenario: Scenario = {
  name: 'replay-keeps-handoff-decision',
  team: () =>
    new Team([
      agent('desk', [{ handoff: { to: 'refunds', message: 'refund order 7' } }, { text: 'handled at the desk' }]),
      agent('refunds', [{ text: 'refunded' }], {
        approval: { approvers: ['alice'], timeout: '1 second', onTimeout: 'approve' },
      }),
    ]),
  providers: (): ModelProviders => {
    const scripted = new ScriptedProvider();
    return {
      scripted: {
        call: (input, context) => {
          if (providerDown && input.callIndex > 0)
            throw ApplicationFailure.nonRetryable('the model provider is down', 'ProviderDown');
          return scripted.call(input, context);
        },
      },
    };
  },
  drive: async (b) => {
    providerDown = true;
    const run = await b.start('desk', 'refund order 7', { modelActivity: 'local' });
    const waiting = await nextApproval(run);
    await b.reject(run.workflowId, waiting.handoffId, { approver: 'alice', reason: 'not this one' });
    await run.result().catch(() => undefined);
    await new Promise((r) => setTimeout(r, 1_500));
    providerDown = false;
    const replayed = await b.replay(run.workflowId);
    if (replayed.mechanism !== 'resume') throw new Error(`the replay went the ${replayed.mechanism} way`);
    const result = await b.getRun(run.workflowId).result();
    if (result.output !== 'handled at the desk') throw new Error(`the replay ended with ${String(result.output)}`);
    return run.workflowId;
  },
};
