/**
 * What a waiting chain keeps: `node --expose-gc --import tsx bench/waitingHeap.ts [--chains 300]`.
 * Workers run their workflows in the main thread (`debugMode`), so the heap measured after a full
 * GC holds the workflow cache; the heap a chain waiting for approval adds is compared with a bare
 * workflow waiting on a signal (the floor), each on a dev server of its own, after 20 warm-up ones.
 */
import { parseArgs } from 'node:util';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { Baton } from '../src/client/baton';
import { startDevServer } from '../src/devserver/server';
import { createWorker } from '../src/worker';
import * as floorActivities from './floor/activities';
import { round, table } from './lib';
import { approvalTeam } from './teams';

const { values } = parseArgs({ options: { chains: { type: 'string', default: '300' } } });
const chains = Number(values.chains);

function heapUsed(): number {
  if (!global.gc) throw new Error('run with node --expose-gc');
  global.gc();
  global.gc();
  return process.memoryUsage().heapUsed;
}

/** Heap KB each of `chains` waiting workflows adds. */
async function perWaiting(system: 'baton' | 'floor'): Promise<number> {
  const env = await startDevServer();
  try {
    const queue = `waiting-${system}`;
    const options = {
      connection: env.nativeConnection,
      taskQueue: queue,
      debugMode: true,
      maxCachedWorkflows: chains * 2,
    };
    const worker =
      system === 'baton'
        ? await createWorker({
            team: approvalTeam(),
            connection: env.nativeConnection,
            taskQueue: queue,
            worker: { debugMode: true, maxCachedWorkflows: chains * 2 },
          })
        : await Worker.create({
            ...options,
            workflowsPath: require.resolve('./floor/workflows'),
            activities: floorActivities,
          });
    return await worker.runUntil(async () => {
      const baton = new Baton({ client: env.client, taskQueue: queue });
      const start = (i: number) =>
        system === 'baton'
          ? baton.start('a', 'go')
          : env.client.workflow.start('waitForSignal', { taskQueue: queue, workflowId: `wait-${i}` });
      const waiting = async () =>
        (
          await env.client.workflow.count(
            `TaskQueue = "${queue}" AND BatonStatus = "awaiting_approval" AND ExecutionStatus = "Running"`,
          )
        ).count;
      const fill = async (from: number, n: number) => {
        for (let i = from; i < from + n; i++) await start(i);
        while ((await waiting()) < from + n) await new Promise((r) => setTimeout(r, 200));
        await new Promise((r) => setTimeout(r, 500));
      };
      await fill(0, 20);
      const before = heapUsed();
      await fill(20, chains);
      return (heapUsed() - before) / 1024 / chains;
    });
  } finally {
    await env.teardown();
  }
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const floor = await perWaiting('floor');
  const baton = await perWaiting('baton');
  console.log(
    `\nHeap a waiting chain keeps (${chains} chains, KB)\n${table([
      { system: 'baton, a chain waiting for approval', 'KB each': round(baton, 1), ratio: round(baton / floor, 2) },
      { system: 'floor: a workflow waiting on a signal', 'KB each': round(floor, 1), ratio: 1 },
    ])}`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
