/**
 * Evaluation's own workflows: an eval of a changed team against a recorded chain (the `evalRun`,
 * its `evalCase` and the candidate chain, whose first step the record answers and whose second the
 * model does), and an experiment started and stopped.
 */
import { Team } from '../../src';
import { evalCases } from '../../src/eval/cases';
import { runEval } from '../../src/eval/run';
import { experimentWorkflowId } from '../../src/client/experiments';
import { scriptedAgent as agent } from '../helpers/agents';
import type { Scenario } from './scenarios';

const recorded = () =>
  new Team([agent('a', [{ handoff: { to: 'b', message: 'over to you' } }]), agent('b', [{ text: 'b answers' }])]);
const candidate = () =>
  new Team([
    agent('a', [{ handoff: { to: 'b', message: 'over to you' } }]),
    agent('b', [{ text: 'b answers anew' }], { instructions: 'You are b, briefly.' }),
  ]);

export const evalRunScenario: Scenario = {
  name: 'eval-run',
  withSpecialists: true,
  team: recorded,
  drive: async (baton, env) => {
    const chain = await baton.run('a', 'go');
    const report = await runEval({
      client: baton.client,
      connection: env.nativeConnection,
      team: candidate(),
      cases: await evalCases(baton.client, { ids: [chain.workflowId] }),
      evalId: 'eval-recorded',
      pollMs: 100,
    });
    return report.summary.evalId;
  },
};

export const experimentScenario: Scenario = {
  name: 'experiment-stopped',
  team: recorded,
  drive: async (baton) => {
    await baton.experiments.start({
      id: 'recorded',
      key: 'context.tenant',
      variants: [{ name: 'a' }, { name: 'b', weight: 2, options: { maxHandoffs: 2 } }],
    });
    await baton.experiments.stop('recorded', { winner: 'b', by: 'alice', reason: 'recorded' });
    await baton.client.workflow.getHandle(experimentWorkflowId('recorded')).result();
    return experimentWorkflowId('recorded');
  },
};
