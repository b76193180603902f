/**
 * baton's benchmarks: `npm run bench [-- --latency 300] [-- --quick]`. Each figure is a median over
 * repeated runs beside a baseline measured in the same run (the engine's floor, or the OpenAI Agents
 * SDK in-process), because absolute times drift between machines. Writes bench/results.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@temporalio/client';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { Baton } from '../src/client/baton';
import { startDevServer } from '../src/devserver/server';
import { createWorker, type CreateWorkerOptions } from '../src/worker';
import { batonDataConverter } from '../src/payloads/codec';
import { sdkChain } from './agentsSdk';
import * as floorActivities from './floor/activities';
import { historyCost } from './history';
import { median, percentile, round, rssSampler, table, timeRuns } from './lib';
import { replayCost } from './replay';
import { approvalTeam, chainTeam } from './teams';

const { values } = parseArgs({
  options: {
    latency: { type: 'string', default: '0' },
    reps: { type: 'string', default: '7' },
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    'dynamic-config': { type: 'string', multiple: true },
  },
});
const latency = Number(values.latency);
const quick = values.quick;
const reps = quick ? 3 : Number(values.reps);
const selected = (name: string) => !values.only || values.only.split(',').includes(name);

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const env = await startDevServer({ dynamicConfig: values['dynamic-config'] ?? [] });
  const results: Record<string, unknown> = { date: new Date().toISOString(), latencyMs: latency, reps, node: process.version };
  const floor = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: 'bench-floor',
    workflowsPath: require.resolve('./floor/workflows'),
    activities: floorActivities,
  });
  const floorRun = floor.run();
  const withBaton = async <T>(team: CreateWorkerOptions['team'], queue: string, fn: (b: Baton) => Promise<T>, extra: Partial<CreateWorkerOptions> = {}) => {
    const worker = await createWorker({ team, connection: env.nativeConnection, taskQueue: queue, ...extra });
    const client = extra.compress ? new Client({ connection: env.connection, dataConverter: batonDataConverter({ compress: true }) }) : env.client;
    return worker.runUntil(fn(new Baton({ client, taskQueue: queue })));
  };
  const floorChain = (steps: number, modelCalls: number) =>
    env.client.workflow.execute('noopChain', {
      taskQueue: 'bench-floor',
      workflowId: `floor-${Math.random()}`,
      args: [{ steps, latencyMs: Array.from({ length: steps }, (_, i) => (i > 0 && i <= modelCalls ? latency : 0)) }],
    });

  try {
    if (selected('handoff')) {
      // 1. Orchestration cost per handoff: sequential chains of 10 handoffs.
      const handoffs = 10;
      const steps = 1 + (handoffs + 1); // loadTeam and the model calls: the activities a chain needs
      const batonTimes = await withBaton(chainTeam(handoffs, latency), 'bench-chain', (b) => timeRuns(reps, () => b.run('c0', 'go')));
      const floorTimes = await timeRuns(reps, () => floorChain(steps, handoffs + 1));
      const sdk = sdkChain(handoffs, latency);
      const sdkTimes = await timeRuns(reps, sdk, 2);
      const perHandoff = (t: number[]) => median(t) / handoffs;
      results.perHandoff = {
        handoffsPerChain: handoffs,
        batonMs: round(perHandoff(batonTimes)),
        floorMs: round(perHandoff(floorTimes)),
        agentsSdkMs: round(perHandoff(sdkTimes), 3),
        batonOverFloor: round(median(batonTimes) / median(floorTimes)),
        batonOverAgentsSdk: round(median(batonTimes) / median(sdkTimes), 1),
      };
      print('Orchestration cost per handoff (median ms, chains of 10 handoffs, sequential)', [
        { system: 'baton (durable)', 'ms/handoff': round(perHandoff(batonTimes)), ratio: 1 },
        { system: `floor: ${steps} no-op activities`, 'ms/handoff': round(perHandoff(floorTimes)), ratio: round(median(floorTimes) / median(batonTimes)) },
        { system: 'OpenAI Agents SDK, in-process', 'ms/handoff': round(perHandoff(sdkTimes), 3), ratio: round(median(sdkTimes) / median(batonTimes), 4) },
      ]);
    }

    if (selected('throughput')) {
      // 2. Throughput: chains of 5 handoffs started at once on one worker.
      const chains = quick ? 50 : 200;
      const handoffs = 5;
      const steps = 1 + (handoffs + 1);
      const burst = async (start: () => Promise<unknown>) => {
        const rss = rssSampler();
        const t0 = performance.now();
        const latencies = await Promise.all(
          Array.from({ length: chains }, async () => {
            const t = performance.now();
            await start();
            return performance.now() - t;
          }),
        );
        const total = performance.now() - t0;
        return { total, latencies, peakRssMb: rss.stop() };
      };
      const b = await withBaton(chainTeam(handoffs, latency), 'bench-burst', (baton) => burst(() => baton.run('c0', 'go')));
      const f = await burst(() => floorChain(steps, handoffs + 1));
      const perSecond = (r: { total: number }) => (chains * handoffs) / (r.total / 1000);
      results.throughput = {
        chains,
        handoffsPerChain: handoffs,
        baton: { handoffsPerSecond: round(perSecond(b), 1), p50Ms: round(median(b.latencies)), p95Ms: round(percentile(b.latencies, 95)), peakRssMb: round(b.peakRssMb, 0) },
        floor: { handoffsPerSecond: round(perSecond(f), 1), p50Ms: round(median(f.latencies)), p95Ms: round(percentile(f.latencies, 95)), peakRssMb: round(f.peakRssMb, 0) },
        batonOverFloorThroughput: round(perSecond(b) / perSecond(f)),
      };
      print(`Throughput: ${chains} chains of ${handoffs} handoffs started at once, one worker`, [
        { system: 'baton', 'handoffs/s': round(perSecond(b), 1), 'p50 ms': round(median(b.latencies)), 'p95 ms': round(percentile(b.latencies, 95)), 'peak RSS MB': round(b.peakRssMb, 0) },
        { system: `floor (${steps} no-op activities)`, 'handoffs/s': round(perSecond(f), 1), 'p50 ms': round(median(f.latencies)), 'p95 ms': round(percentile(f.latencies, 95)), 'peak RSS MB': round(f.peakRssMb, 0) },
      ]);
    }

    if (selected('history')) {
      // 3. History cost: events per handoff; bytes per model turn as a conversation grows.
      const cost = await historyCost(env, withBaton, quick);
      results.history = cost;
      print('History: events per handoff', [cost.eventsPerHandoff]);
      print('History bytes per model turn (callModel input + answer), ~200-token messages', cost.bytesPerTurn);
    }

    if (selected('replay')) {
      // 4. Replay: a determinism check of ~1,000 history events.
      const r = await replayCost(env, withBaton, floorChain, reps);
      results.replay = r;
      print('Replay of ~1,000 history events (determinism check, median ms)', [
        { history: `baton chain (${r.batonEvents} events)`, ms: r.batonMs, 'ms per 1,000 events': r.batonMsPer1000 },
        { history: `floor (${r.floorEvents} events)`, ms: r.floorMs, 'ms per 1,000 events': r.floorMsPer1000 },
      ]);
    }

    if (selected('waiting')) {
      // 5. Worker memory with chains waiting for approval.
      const count = quick ? 200 : 1000;
      const measureWaiting = async (start: (i: number) => Promise<unknown>, waiting: () => Promise<number>, release: () => Promise<unknown>) => {
        global.gc?.();
        const before = process.memoryUsage().rss / 2 ** 20;
        for (let i = 0; i < count; i += 50) await Promise.all(Array.from({ length: Math.min(50, count - i) }, (_, j) => start(i + j)));
        while ((await waiting()) < count) await new Promise((r) => setTimeout(r, 250));
        global.gc?.();
        const after = process.memoryUsage().rss / 2 ** 20;
        await release();
        return { beforeMb: round(before, 0), afterMb: round(after, 0), perChainKb: round(((after - before) * 1024) / count, 1) };
      };
      const batonWait = await withBaton(approvalTeam(), 'bench-wait', async (baton) => {
        const ids: string[] = [];
        return measureWaiting(
          async () => ids.push((await baton.start('a', 'go')).workflowId),
          async () => (await env.client.workflow.count(`TaskQueue = "bench-wait" AND BatonStatus = "awaiting_approval"`)).count,
          () => Promise.all(ids.map((id) => env.client.workflow.getHandle(id).terminate('benchmark done'))),
        );
      });
      const floorIds: string[] = [];
      const floorWait = await measureWaiting(
        async (i) => floorIds.push((await env.client.workflow.start('waitForSignal', { taskQueue: 'bench-floor', workflowId: `floor-wait-${i}-${Date.now()}` })).workflowId),
        async () => (await env.client.workflow.count(`TaskQueue = "bench-floor" AND BatonStatus = "awaiting_approval" AND ExecutionStatus = "Running"`)).count,
        () => Promise.all(floorIds.map((id) => env.client.workflow.getHandle(id).signal('release'))),
      );
      results.waiting = { chains: count, baton: batonWait, floor: floorWait, batonOverFloorPerChain: round(batonWait.perChainKb / Math.max(0.1, floorWait.perChainKb)) };
      print(`Worker memory with ${count} chains waiting for approval (RSS MB of the worker process)`, [
        { system: 'baton', ...batonWait },
        { system: 'floor: workflows waiting on a signal', ...floorWait },
      ]);
    }
  } catch (err) {
    console.error('benchmark failed:', err);
    throw err;
  } finally {
    floor.shutdown();
    await floorRun;
    await env.teardown();
  }
  const out = path.join(__dirname, 'results.json');
  fs.writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nwrote ${path.relative(process.cwd(), out)}`);
}

function print(title: string, rows: Record<string, string | number>[]): void {
  console.log(`\n${title}\n${table(rows)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
