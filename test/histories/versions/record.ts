/**
 * Record the histories of team versions and deploys that CI replays:
 * `npx tsx test/histories/versions/record.ts [<scenario> …]`. Chains on the redeploy drill's team v1 meet workers
 * of v2: a step refused and taken by a v1 worker; chains stranded with v1 gone, failed with
 * `TeamMismatchError` and migrated onto v2 (a renamed tool with an approval already given, a
 * handoff to a removed agent); a conversation pinned to deployment version v1 moving to v2 between
 * turns (into test/conversation/histories).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { DefaultLogger, Runtime, type Worker } from '@temporalio/worker';
import { redeployTeam, type TeamVersionName } from '../../../drill/redeploy/team';
import { Baton, type BatonRun } from '../../../src';
import { startDevServer, type DevServer } from '../../../src/devserver/server';
import { createWorker, type WorkerDeployment } from '../../../src/worker';
import { setCurrentVersion } from '../../../drill/deployments';

const options = { teamMismatchTimeout: '2 seconds' };

class Workers {
  private readonly running = new Map<TeamVersionName, { worker: Worker; done: Promise<void> }>();
  constructor(
    private readonly env: DevServer,
    private readonly taskQueue: string,
    private readonly deployment?: string,
  ) {}

  async start(v: TeamVersionName): Promise<void> {
    const deployment: WorkerDeployment | false = this.deployment ? { name: this.deployment, buildId: v } : false;
    const unversioned = {
      workerDeploymentOptions: {
        useWorkerVersioning: false as const,
        version: { deploymentName: 'support', buildId: v },
      },
    };
    const worker = await createWorker({
      team: redeployTeam(v),
      connection: this.env.nativeConnection,
      taskQueue: this.taskQueue,
      deployment,
      ...(this.deployment ? {} : { worker: unversioned }),
    });
    this.running.set(v, { worker, done: worker.run() });
    if (this.deployment) await setCurrentVersion(this.env.client, this.deployment, v, 'record');
  }

  async stop(v: TeamVersionName): Promise<void> {
    const w = this.running.get(v);
    if (!w) return;
    this.running.delete(v);
    w.worker.shutdown();
    await w.done;
  }

  async stopAll(): Promise<void> {
    for (const v of [...this.running.keys()]) await this.stop(v);
  }
}

async function approveWhenWaiting(baton: Baton, run: BatonRun, count = 1): Promise<void> {
  for (let decided = 0; decided < count;) {
    const waiting = await baton.pending();
    const mine = waiting.filter((p) => p.workflowId === run.workflowId);
    for (const p of mine) {
      await baton.approve(p.workflowId, p.approvalId, { approver: 'alice' });
      decided++;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A chain of `kind` waiting on v1; v1 stops, v2 starts, its approval is granted; it fails, then is migrated. */
async function stranded(env: DevServer, name: string, agent: string, input: string): Promise<string> {
  const workers = new Workers(env, `record-${name}`);
  const baton = new Baton({ client: env.client, taskQueue: `record-${name}` });
  try {
    await workers.start('v1');
    const run = await baton.start(agent, input, { workflowId: `record-${name}`, ...options });
    while ((await run.pendingApprovals()).length === 0) await new Promise((r) => setTimeout(r, 100));
    await workers.stop('v1');
    await workers.start('v2');
    const approving = approveWhenWaiting(baton, run);
    await run.result().catch(() => undefined);
    await approving;
    await baton.replay(run.workflowId, { onCurrentTeam: true });
    await baton.getRun(run.workflowId).result();
    return run.workflowId;
  } finally {
    await workers.stopAll();
  }
}

/** A tool call refused by v2 and taken by v1 once it is back. */
async function rerouted(env: DevServer): Promise<string> {
  const workers = new Workers(env, 'record-team-mismatch-rerouted');
  const baton = new Baton({ client: env.client, taskQueue: 'record-team-mismatch-rerouted' });
  try {
    await workers.start('v1');
    const run = await baton.start('refunds', 'Refund order A1 for 250', {
      workflowId: 'record-team-mismatch-rerouted',
      teamMismatchTimeout: '1 minute',
    });
    const [waiting] = await (async () => {
      for (;;) {
        const p = await run.pendingApprovals();
        if (p.length > 0) return p;
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    await workers.stop('v1');
    await workers.start('v2');
    await baton.approve(run.workflowId, waiting!.handoffId, { approver: 'alice' });
    await new Promise((r) => setTimeout(r, 1500));
    await workers.stop('v2');
    await workers.start('v1');
    await run.result();
    return run.workflowId;
  } finally {
    await workers.stopAll();
  }
}

/** A conversation on deployment version v1 between turns when v2 becomes current. */
async function upgraded(env: DevServer): Promise<string> {
  const workers = new Workers(env, 'record-conversation-upgrade', 'support-record');
  const baton = new Baton({ client: env.client, taskQueue: 'record-conversation-upgrade' });
  try {
    await workers.start('v1');
    const chat = baton.conversation('triage', { id: 'record-conversation-upgrade' });
    await chat.send('hello');
    await workers.start('v2');
    // Once a new chain starts on v2, the conversation is told too.
    for (let i = 0; ; i++) {
      const probe = await baton.start('triage', 'quote please', {
        workflowId: `record-conversation-upgrade-probe-${i}`,
      });
      if ((await probe.result()).output.includes('triage v2')) break;
    }
    const reply = await chat.send('hello again');
    if (!reply.output.includes('triage v2'))
      throw new Error(`the turn after the deploy was answered by ${reply.output}`);
    await chat.end();
    return chat.id;
  } finally {
    await workers.stopAll();
  }
}

async function save(client: Client, workflowId: string, dir: string, name: string): Promise<void> {
  const runs: string[] = [];
  for await (const wf of client.workflow.list({ query: `WorkflowId = "${workflowId}"` })) runs.push(wf.runId);
  for (const [i, runId] of runs.entries()) {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const file = path.join(dir, runs.length > 1 ? `${name}.run${runs.length - i}.json` : `${name}.json`);
    fs.writeFileSync(file, `${historyToJSON(temporal.api.history.v1.History.create(history))}\n`);
    console.log(`recorded ${path.relative(process.cwd(), file)} (${history.events?.length ?? 0} events)`);
  }
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const env = await startDevServer();
  const conversations = path.resolve(__dirname, '../../conversation/histories');
  try {
    const named = process.argv.slice(2);
    const wanted = (name: string) => named.length === 0 || named.includes(name);
    if (wanted('team-mismatch-rerouted'))
      await save(env.client, await rerouted(env), __dirname, 'team-mismatch-rerouted');
    if (wanted('team-mismatch-renamed-tool'))
      await save(
        env.client,
        await stranded(env, 'team-mismatch-renamed-tool', 'refunds', 'Refund order A1 for 250'),
        __dirname,
        'team-mismatch-renamed-tool',
      );
    if (wanted('team-mismatch-removed-agent'))
      await save(
        env.client,
        await stranded(env, 'team-mismatch-removed-agent', 'triage', 'quote please'),
        __dirname,
        'team-mismatch-removed-agent',
      );
    if (wanted('conversation-upgrade'))
      await save(env.client, await upgraded(env), conversations, 'conversation-upgrade');
  } finally {
    await env.teardown();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
