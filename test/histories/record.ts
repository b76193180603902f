/**
 * Re-record the histories CI replays: `npm run record-histories [-- <scenario> …]` (all of them
 * when none is named). Run it after a change to the workflow code that is meant to change
 * histories (with `patched()` guarding running chains).
 */
import fs from 'node:fs';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { Baton } from '../../src/client/baton';
import { startDevServer } from '../../src/devserver/server';
import { createWorker } from '../../src/worker';
import {
  delegationScenario,
  signedDecisionsScenario,
  signedForwardScenario,
  toolApprovalChecksScenario,
} from './auditScenarios';
import { costsScenario, sharedEconomicsScenario, type SharedScenario } from './economicsScenarios';
import { priorityScenario } from './platformScenarios';
import { approvalPoliciesScenario } from './approvalScenarios';
import {
  approvalNotificationsScenario,
  approvalQuestionsScenario,
  approvalQuorumScenario,
} from './approvalOpsScenarios';
import { liveConversationScenario, steeredChainScenario } from './liveScenarios';
import { evalRunScenario, experimentScenario } from './evalScenarios';
import { routingLeastLoadedScenario, routingRoundRobinScenario } from './routingScenarios';
import { baselineScenarios } from './baselineScenarios';
import { carriedScenarios } from './carriedScenarios';
import {
  migrationRefusedInTurnScenario,
  migrationRefusedScenario,
  refusedWhileRollingScenario,
  strandedMigratedScenario,
} from './strandedScenarios';
import { entryWaitContinuedScenario } from './entryScenarios';
import { remoteDelegationScenario } from './remoteScenarios';
import { policyUpdateScenario } from './policyScenarios';
import { passkeyDecisionsScenario } from './passkeyScenarios';
import { operatorPasskeyScenario, publishedKeysScenario } from './keyScenarios';
import {
  continueAsNewScenario,
  controlsScenario,
  handoffOptionsScenario,
  localModelCallsScenario,
  scenarios,
} from './scenarios';
import { lostWorkerScenario } from './lostWorkerScenarios';
import { replayKeepsDecisionScenario } from './replayScenarios';
import { specialistDecisionsScenario } from './specialistScenarios';

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const env = await startDevServer();
  const dir = __dirname;
  try {
    const named = process.argv.slice(2);
    const all = [
      ...scenarios,
      approvalPoliciesScenario,
      handoffOptionsScenario,
      continueAsNewScenario,
      controlsScenario,
      localModelCallsScenario,
      specialistDecisionsScenario,
      lostWorkerScenario,
      toolApprovalChecksScenario,
      delegationScenario,
      priorityScenario,
      steeredChainScenario,
      liveConversationScenario,
      signedDecisionsScenario,
      signedForwardScenario,
      costsScenario,
      sharedEconomicsScenario,
      routingRoundRobinScenario,
      routingLeastLoadedScenario,
      evalRunScenario,
      experimentScenario,
      ...baselineScenarios,
      ...carriedScenarios,
      strandedMigratedScenario,
      remoteDelegationScenario,
      policyUpdateScenario,
      approvalQuorumScenario,
      approvalQuestionsScenario,
      approvalNotificationsScenario,
      passkeyDecisionsScenario,
      publishedKeysScenario,
      operatorPasskeyScenario,
      entryWaitContinuedScenario,
      migrationRefusedScenario,
      refusedWhileRollingScenario,
      migrationRefusedInTurnScenario,
      replayKeepsDecisionScenario,
    ];
    for (const scenario of all.filter((s) => named.length === 0 || named.includes(s.name))) {
      const taskQueue = `record-${scenario.name}`;
      const stop = await scenario.prepare?.(env);
      const worker = await createWorker({
        team: scenario.team(),
        connection: env.nativeConnection,
        taskQueue,
        ...(scenario.providers ? { providers: scenario.providers() } : {}),
      });
      const baton = new Baton({ client: env.client, taskQueue });
      // The workflows of their own the chain reached (a spend ledger, a shared breaker) are read while the worker runs them.
      const { workflowId, shared } = await worker.runUntil(
        scenario.drive(baton, env).then(async (id) => ({
          workflowId: id,
          shared: 'shared' in scenario ? await (scenario as SharedScenario).shared(baton, id) : [],
        })),
      );
      await stop?.();
      for (const { suffix, workflowId: id } of shared) {
        const history = await env.client.workflow.getHandle(id).fetchHistory();
        const file = path.join(dir, `${scenario.name}.${suffix}.json`);
        fs.writeFileSync(file, withWorkflowId(historyToJSON(temporal.api.history.v1.History.create(history)), id));
        console.log(`recorded ${path.relative(process.cwd(), file)} (${history.events?.length ?? 0} events)`);
      }
      const runs: string[] = [];
      for await (const wf of env.client.workflow.list({ query: `WorkflowId = "${workflowId}"` })) runs.push(wf.runId);
      const histories = await Promise.all(
        runs.map((runId) => env.client.workflow.getHandle(workflowId, runId).fetchHistory()),
      );
      histories.forEach((history, i) => {
        const file = path.join(
          dir,
          runs.length > 1 ? `${scenario.name}.run${runs.length - i}.json` : `${scenario.name}.json`,
        );
        const json = historyToJSON(temporal.api.history.v1.History.create(history));
        fs.writeFileSync(
          file,
          scenario.withSpecialists || scenario.withWorkflowId ? withWorkflowId(json, workflowId) : `${json}\n`,
        );
        console.log(`recorded ${path.relative(process.cwd(), file)} (${history.events?.length ?? 0} events)`);
      });
      if (scenario.withSpecialists) {
        for await (const wf of env.client.workflow.list({ query: `WorkflowId STARTS_WITH "${workflowId}/"` })) {
          const history = await env.client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
          const file = path.join(
            dir,
            `${scenario.name}.${wf.workflowId.slice(workflowId.length + 1).replace(/[^a-zA-Z0-9.-]+/g, '_')}.json`,
          );
          fs.writeFileSync(
            file,
            withWorkflowId(historyToJSON(temporal.api.history.v1.History.create(history)), wf.workflowId),
          );
          console.log(`recorded ${path.relative(process.cwd(), file)} (${history.events?.length ?? 0} events)`);
        }
      }
    }
  } finally {
    await env.teardown();
  }
}

/** The history's JSON with the workflow id it ran under, for replays of code that derives ids from it. */
function withWorkflowId(json: string, workflowId: string): string {
  return `${JSON.stringify({ workflowId, ...(JSON.parse(json) as object) }, null, 2)}\n`;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
