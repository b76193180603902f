/**
 * baton's benchmarks: `npm run bench [-- --latency 300] [-- --quick]`. Each figure is a median over
 * repeated runs beside a baseline measured in the same run (the engine's floor, the OpenAI Agents
 * SDK in-process, and the peers in bench/peers/: Temporal's OpenAI Agents integration on the same
 * server, a LangGraph swarm in-process), because absolute times drift between machines. Writes
 * bench/results.json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@temporalio/client';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { Baton } from '../src/client/baton';
import type { RunOptions } from '../src/common/options';
import { startDevServer } from '../src/devserver/server';
import { createWorker, type CreateWorkerOptions } from '../src/worker';
import { batonDataConverter } from '../src/payloads/codec';
import { sdkChain } from './agentsSdk';
import * as floorActivities from './floor/activities';
import { historyCost } from './history';
import { interleavedRows, measureInterleaved } from './interleaved';
import { median, percentile, round, rssSampler, table, timeRuns } from './lib';
import { measurePeers } from './peerFigures';
import { replayCost } from './replay';
import { approvalTeam, chainTeam } from './teams';

const { values } = parseArgs({
  options: {
    latency: { type: 'string', default: '0' },
    reps: { type: 'string', default: '7' },
    chains: { type: 'string' },
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    'dynamic-config': { type: 'string', multiple: true },
  },
});
const latency = Number(values.latency);
const quick = values.quick;
const reps = quick ? 3 : Number(values.reps);
const burstChains = values.chains ? Number(values.chains) : quick ? 50 : 200;
const selected = (name: string) => !values.only || values.only.split(',').includes(name);
/** The peers have rows in the handoff, throughput and history tables; `--only peers` measures baton's side of those rows. */
const withPeers = selected('peers');

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const env = await startDevServer({ dynamicConfig: values['dynamic-config'] ?? [] });
  const results: Record<string, unknown> = {
    date: new Date().toISOString(),
    latencyMs: latency,
    reps,
    node: process.version,
  };
  const floor = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: 'bench-floor',
    workflowsPath: require.resolve('./floor/workflows'),
    activities: floorActivities,
  });
  const floorRun = floor.run();
  const withBaton = async <T>(
    team: CreateWorkerOptions['team'],
    queue: string,
    fn: (b: Baton) => Promise<T>,
    extra: Partial<CreateWorkerOptions> = {},
  ) => {
    const worker = await createWorker({ team, connection: env.nativeConnection, taskQueue: queue, ...extra });
    const client = extra.compress
      ? new Client({ connection: env.connection, dataConverter: batonDataConverter({ compress: true }) })
      : env.client;
    return worker.runUntil(fn(new Baton({ client, taskQueue: queue })));
  };
  const floorChain = (steps: number, modelCalls: number, local = false, writes = false) =>
    env.client.workflow.execute('noopChain', {
      taskQueue: 'bench-floor',
      workflowId: `floor-${Math.random()}`,
      args: [
        {
          steps,
          latencyMs: Array.from({ length: steps }, (_, i) => (i > 0 && i <= modelCalls ? latency : 0)),
          local,
          writes,
        },
      ],
    });

  try {
    // The peers run first, each in a process of its own (Temporal's integration against this server), so the tables below carry their rows.
    const peers = withPeers ? await measurePeers(env.address, { reps, latency, burstChains }) : undefined;

    if (selected('handoff') || withPeers) {
      // 1. Orchestration cost per handoff: sequential chains of 10 handoffs.
      const handoffs = 10;
      const steps = 1 + (handoffs + 1); // loadTeam and the model calls: the activities a chain needs
      const batonTimes = await withBaton(chainTeam(handoffs, latency), 'bench-chain', (b) =>
        timeRuns(reps, () => b.run('c0', 'go')),
      );
      const perHandoff = (t: number[]) => median(t) / handoffs;
      const rows: Record<string, string | number>[] = [
        { system: 'baton (durable)', 'ms/handoff': round(perHandoff(batonTimes)), ratio: 1 },
      ];
      const recorded: Record<string, number> = { handoffsPerChain: handoffs, batonMs: round(perHandoff(batonTimes)) };
      // baton's figure with local model calls, for the peers that run theirs so (measured with the floor's rows).
      let batonLocalPerHandoff: number | undefined;
      results.perHandoff = recorded;
      if (selected('handoff')) {
        const floorTimes = await timeRuns(reps, () => floorChain(steps, handoffs + 1));
        const sdk = sdkChain(handoffs, latency);
        const sdkTimes = await timeRuns(reps, sdk, 2);
        Object.assign(recorded, {
          floorMs: round(perHandoff(floorTimes)),
          agentsSdkMs: round(perHandoff(sdkTimes), 3),
          batonOverFloor: round(median(batonTimes) / median(floorTimes)),
          batonOverAgentsSdk: round(median(batonTimes) / median(sdkTimes), 1),
        });
        // Model calls as local activities, beside the floor's no-op activities run the same way.
        const localTimes = await withBaton(chainTeam(handoffs, latency), 'bench-chain-local', (b) =>
          timeRuns(reps, () => b.run('c0', 'go', { modelActivity: 'local' })),
        );
        const floorLocalTimes = await timeRuns(reps, () => floorChain(steps, handoffs + 1, true));
        // The floor making the writes a handoff makes (search attributes and the memo record).
        const floorWritesTimes = await timeRuns(reps, () => floorChain(steps, handoffs + 1, false, true));
        const floorLocalWritesTimes = await timeRuns(reps, () => floorChain(steps, handoffs + 1, true, true));
        // The same chain on a server as `temporal server start-dev` comes, without baton's tuning.
        const untunedTimes = await chainsOn({ tuned: false }, handoffs, reps);
        // A server that keeps its state in a file, as a durable one must (the server above keeps it in memory).
        const fileTimes = await chainsOn({ dbFilename: 'bench.db' }, handoffs, reps);
        const fileLocalTimes = await chainsOn({ dbFilename: 'bench.db' }, handoffs, reps, { modelActivity: 'local' });
        batonLocalPerHandoff = perHandoff(localTimes);
        Object.assign(recorded, {
          batonLocalMs: round(perHandoff(localTimes)),
          floorLocalMs: round(perHandoff(floorLocalTimes)),
          batonLocalOverFloorLocal: round(median(localTimes) / median(floorLocalTimes)),
          batonUntunedServerMs: round(perHandoff(untunedTimes)),
          floorWithWritesMs: round(perHandoff(floorWritesTimes)),
          floorLocalWithWritesMs: round(perHandoff(floorLocalWritesTimes)),
          batonFileServerMs: round(perHandoff(fileTimes)),
          batonLocalFileServerMs: round(perHandoff(fileLocalTimes)),
        });
        rows.push(
          {
            system: `floor: ${steps} no-op activities`,
            'ms/handoff': round(perHandoff(floorTimes)),
            ratio: round(median(floorTimes) / median(batonTimes)),
          },
          {
            system: "baton, model calls as local activities (modelActivity: 'local')",
            'ms/handoff': round(perHandoff(localTimes)),
            ratio: round(median(localTimes) / median(batonTimes)),
          },
          {
            system: `floor: ${steps} no-op local activities`,
            'ms/handoff': round(perHandoff(floorLocalTimes)),
            ratio: round(median(floorLocalTimes) / median(batonTimes)),
          },
          {
            system: "floor + a handoff's writes (search attributes, memo record)",
            'ms/handoff': round(perHandoff(floorWritesTimes)),
            ratio: round(median(floorWritesTimes) / median(batonTimes)),
          },
          {
            system: "floor local + a handoff's writes",
            'ms/handoff': round(perHandoff(floorLocalWritesTimes)),
            ratio: round(median(floorLocalWritesTimes) / median(batonTimes)),
          },
          {
            system: 'baton on an untuned dev server (MaxPollRPS 20)',
            'ms/handoff': round(perHandoff(untunedTimes)),
            ratio: round(median(untunedTimes) / median(batonTimes)),
          },
          {
            system: 'baton on a dev server keeping its state in a file',
            'ms/handoff': round(perHandoff(fileTimes)),
            ratio: round(median(fileTimes) / median(batonTimes)),
          },
          {
            system: 'baton, local model calls, on a dev server keeping its state in a file',
            'ms/handoff': round(perHandoff(fileLocalTimes)),
            ratio: round(median(fileLocalTimes) / median(batonTimes)),
          },
          {
            system: 'OpenAI Agents SDK, in-process',
            'ms/handoff': round(perHandoff(sdkTimes), 3),
            ratio: round(median(sdkTimes) / median(batonTimes), 4),
          },
        );
      }
      for (const p of peers?.perHandoff ?? []) {
        // Like with like: a peer's local-activity mode against baton's local model calls, when measured.
        const ours = p.local && batonLocalPerHandoff !== undefined ? batonLocalPerHandoff : perHandoff(batonTimes);
        p.figures.batonOverPerHandoff = round(ours / p.ms, 2);
        rows.push({ system: p.system, 'ms/handoff': round(p.ms, 3), ratio: round(p.ms / perHandoff(batonTimes), 3) });
      }
      print('Orchestration cost per handoff (median ms, chains of 10 handoffs, sequential)', rows);
    }

    if (selected('interleaved')) {
      // 1b. baton and its floor in interleaved rounds: ratios a machine whose pace drifts does not skew.
      const f = (results.interleaved = await measureInterleaved(withBaton, floorChain, {
        latency,
        rounds: quick ? 3 : reps,
        chainsPerRound: quick ? 3 : 10,
      }));
      print(
        `baton and its floor, ${f.rounds} interleaved rounds of ${f.chainsPerRound} chains of 10 handoffs (ms a handoff: median of rounds; baton over it: median of each round's ratio)`,
        interleavedRows(f),
      );
    }

    if (selected('throughput') || withPeers) {
      // 2. Throughput: chains of 5 handoffs started at once on one worker.
      const chains = burstChains;
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
      const b = await withBaton(chainTeam(handoffs, latency), 'bench-burst', (baton) =>
        burst(() => baton.run('c0', 'go')),
      );
      let batonLocalPerSecond: number | undefined;
      const perSecond = (r: { total: number }) => (chains * handoffs) / (r.total / 1000);
      const figures = (r: { total: number; latencies: number[]; peakRssMb: number }) => ({
        handoffsPerSecond: round(perSecond(r), 1),
        p50Ms: round(median(r.latencies)),
        p95Ms: round(percentile(r.latencies, 95)),
        peakRssMb: round(r.peakRssMb, 0),
      });
      const row = (system: string, r: ReturnType<typeof figures>) => ({
        system,
        'handoffs/s': r.handoffsPerSecond,
        'p50 ms': r.p50Ms,
        'p95 ms': r.p95Ms,
        'peak RSS MB': r.peakRssMb,
      });
      const rows = [row('baton', figures(b))];
      const recorded: Record<string, unknown> = { chains, handoffsPerChain: handoffs, baton: figures(b) };
      results.throughput = recorded;
      if (selected('throughput')) {
        const f = await burst(() => floorChain(steps, handoffs + 1));
        // The floor making a handoff's writes: what the server's share of a burst is.
        const fw = await burst(() => floorChain(steps, handoffs + 1, false, true));
        const bl = await withBaton(chainTeam(handoffs, latency), 'bench-burst-local', (baton) =>
          burst(() => baton.run('c0', 'go', { modelActivity: 'local' })),
        );
        const fl = await burst(() => floorChain(steps, handoffs + 1, true));
        batonLocalPerSecond = perSecond(bl);
        Object.assign(recorded, {
          floor: figures(f),
          batonOverFloorThroughput: round(perSecond(b) / perSecond(f)),
          floorWithWrites: figures(fw),
          batonOverFloorWithWritesThroughput: round(perSecond(b) / perSecond(fw)),
          batonLocal: figures(bl),
          floorLocal: figures(fl),
          batonLocalOverFloorLocalThroughput: round(perSecond(bl) / perSecond(fl)),
        });
        rows.push(
          row(`floor (${steps} no-op activities)`, figures(f)),
          row("floor + a handoff's writes", figures(fw)),
          row('baton, local model calls', figures(bl)),
          row(`floor (${steps} no-op local activities)`, figures(fl)),
        );
      }
      for (const p of peers?.throughput ?? []) {
        const ours = p.local && batonLocalPerSecond !== undefined ? batonLocalPerSecond : perSecond(b);
        p.figures.batonOverThroughput = round(ours / p.handoffsPerSecond, 2);
        rows.push(row(p.system, p.figures.throughput));
      }
      print(`Throughput: ${chains} chains of ${handoffs} handoffs started at once, one worker`, rows);
    }

    if (selected('history')) {
      // 3. History cost: events per handoff; bytes per model turn as a conversation grows.
      const cost = await historyCost(env, withBaton, quick);
      const handoffs = 10;
      const localEvents = await withBaton(chainTeam(handoffs, 0), 'bench-history-local', async (b) => {
        const { workflowId } = await b.run('c0', 'go', { modelActivity: 'local' });
        return (await b.getRun(workflowId).handle.fetchHistory()).events?.length ?? 0;
      });
      const local = { handoffs, events: localEvents, 'events/handoff': round(localEvents / handoffs, 1) };
      results.history = { ...cost, eventsPerHandoffLocal: local };
      print('History: events per handoff', [
        { system: 'baton', ...cost.eventsPerHandoff },
        { system: 'baton, local model calls', ...local },
        ...(peers?.history ?? []),
      ]);
      print('History bytes per model turn (callModel input + answer), ~200-token messages', cost.bytesPerTurn);
    } else if (withPeers) {
      // Only baton's events per handoff, for the peers' rows: historyCost's long conversations are not needed.
      const handoffs = 10;
      const events = await withBaton(chainTeam(handoffs, 0), 'bench-history-chain', async (b) => {
        const { workflowId } = await b.run('c0', 'go');
        return (await b.getRun(workflowId).handle.fetchHistory()).events?.length ?? 0;
      });
      results.history = { eventsPerHandoff: { handoffs, events, 'events/handoff': round(events / handoffs, 1) } };
      print('History: events per handoff', [
        { system: 'baton', handoffs, events, 'events/handoff': round(events / handoffs, 1) },
        ...(peers?.history ?? []),
      ]);
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
      const measureWaiting = async (
        start: (i: number) => Promise<unknown>,
        waiting: () => Promise<number>,
        release: () => Promise<unknown>,
      ) => {
        global.gc?.();
        const before = process.memoryUsage().rss / 2 ** 20;
        for (let i = 0; i < count; i += 50)
          await Promise.all(Array.from({ length: Math.min(50, count - i) }, (_, j) => start(i + j)));
        while ((await waiting()) < count) await new Promise((r) => setTimeout(r, 250));
        global.gc?.();
        const after = process.memoryUsage().rss / 2 ** 20;
        await release();
        return {
          beforeMb: round(before, 0),
          afterMb: round(after, 0),
          perChainKb: round(((after - before) * 1024) / count, 1),
        };
      };
      const batonWait = await withBaton(approvalTeam(), 'bench-wait', async (baton) => {
        const ids: string[] = [];
        return measureWaiting(
          async () => ids.push((await baton.start('a', 'go')).workflowId),
          async () =>
            (await env.client.workflow.count(`TaskQueue = "bench-wait" AND BatonStatus = "awaiting_approval"`)).count,
          () => Promise.all(ids.map((id) => env.client.workflow.getHandle(id).terminate('benchmark done'))),
        );
      });
      const floorIds: string[] = [];
      const floorWait = await measureWaiting(
        async (i) =>
          floorIds.push(
            (
              await env.client.workflow.start('waitForSignal', {
                taskQueue: 'bench-floor',
                workflowId: `floor-wait-${i}-${Date.now()}`,
              })
            ).workflowId,
          ),
        async () =>
          (
            await env.client.workflow.count(
              `TaskQueue = "bench-floor" AND BatonStatus = "awaiting_approval" AND ExecutionStatus = "Running"`,
            )
          ).count,
        () => Promise.all(floorIds.map((id) => env.client.workflow.getHandle(id).signal('release'))),
      );
      results.waiting = {
        chains: count,
        baton: batonWait,
        floor: floorWait,
        batonOverFloorPerChain: round(batonWait.perChainKb / Math.max(0.1, floorWait.perChainKb)),
      };
      print(`Worker memory with ${count} chains waiting for approval (RSS MB of the worker process)`, [
        { system: 'baton', ...batonWait },
        { system: 'floor: workflows waiting on a signal', ...floorWait },
      ]);
    }
    // Recorded last: the sections above add baton's ratios to the peers' figures.
    if (peers) results.peers = peers.figures;
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

/** Chains run on a dev server of their own, started with `options` (as `temporal server start-dev` comes, or keeping its state in a file). */
async function chainsOn(
  options: Parameters<typeof startDevServer>[0],
  handoffs: number,
  reps: number,
  runOptions: RunOptions = {},
): Promise<number[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-bench-'));
  const env = await startDevServer({
    ...options,
    ...(options?.dbFilename ? { dbFilename: path.join(dir, options.dbFilename) } : {}),
  });
  try {
    const worker = await createWorker({
      team: chainTeam(handoffs, latency),
      connection: env.nativeConnection,
      taskQueue: 'bench-own-server',
    });
    return await worker.runUntil(() =>
      timeRuns(reps, () =>
        new Baton({ client: env.client, taskQueue: 'bench-own-server' }).run('c0', 'go', runOptions),
      ),
    );
  } finally {
    await env.teardown();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function print(title: string, rows: Record<string, string | number>[]): void {
  console.log(`\n${title}\n${table(rows)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
