/**
 * baton's benchmarks: `npm run bench [-- --latency 300] [-- --quick]`. Each figure is a median over
 * repeated runs beside a baseline measured in the same run (the engine's floor, the OpenAI Agents
 * SDK in-process, and the peers in bench/peers/: Temporal's OpenAI Agents integration on the same
 * server, a LangGraph swarm in-process), because absolute times drift between machines. Writes
 * bench/results.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@temporalio/client';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { Baton } from '../src/client/baton';
import { startDevServer, type DevServer } from '../src/devserver/server';
import { createWorker } from '../src/worker';
import { batonDataConverter } from '../src/payloads/codec';
import * as floorActivities from './floor/activities';
import { interleavedRows, measureInterleaved, type FloorChain, type InterleavedPeer } from './interleaved';
import type { WithBaton } from './lib';
import { measurePeers } from './peerFigures';
import { openPeerSession, type PeerSession } from './peerSession';
import { replayCost } from './replay';
import { print, type BenchContext } from './parts/context';
import { handoffPart } from './parts/handoff';
import { historyPart, peersHistoryPart } from './parts/history';
import { throughputPart } from './parts/throughput';
import { waitingPart } from './parts/waiting';

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
  const ctx: BenchContext = {
    env,
    latency,
    reps,
    quick,
    burstChains,
    selected,
    withBaton: batonOn(env),
    floorChain: floorChainOn(env),
  };

  try {
    // The peers run first, each in a process of its own (Temporal's integration against this server), so the tables below carry their rows.
    const peers = withPeers ? await measurePeers(env.address, { reps, latency, burstChains }) : undefined;
    ctx.peers = peers;
    // 1. Orchestration cost per handoff: sequential chains of 10 handoffs.
    if (selected('handoff') || withPeers) results.perHandoff = await handoffPart(ctx);
    // 1b. baton and its floor in interleaved rounds: ratios a machine whose pace drifts does not skew.
    if (selected('interleaved')) results.interleaved = await interleavedPart(ctx);
    // 2. Throughput: chains of 5 handoffs started at once on one worker.
    if (selected('throughput') || withPeers) results.throughput = await throughputPart(ctx);
    // 3. History cost: events per handoff; bytes per model turn as a conversation grows.
    if (selected('history')) results.history = await historyPart(ctx);
    else if (withPeers) results.history = await peersHistoryPart(ctx);
    // 4. Replay: a determinism check of ~1,000 history events.
    if (selected('replay')) results.replay = await replayPart(ctx);
    // 5. Worker memory with chains waiting for approval.
    if (selected('waiting')) results.waiting = await waitingPart(ctx);
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

/** Runs a function with a Baton client while a worker for a team polls its queue on `env` (with the gzip codec when `extra.compress`). */
function batonOn(env: DevServer): WithBaton {
  return async (team, queue, fn, extra = {}) => {
    const worker = await createWorker({ team, connection: env.nativeConnection, taskQueue: queue, ...extra });
    const client = extra.compress
      ? new Client({ connection: env.connection, dataConverter: batonDataConverter({ compress: true }) })
      : env.client;
    return worker.runUntil(fn(new Baton({ client, taskQueue: queue })));
  };
}

/** The floor's chain on `env`, its model calls taking the run's latency. */
function floorChainOn(env: DevServer): FloorChain {
  return (steps, modelCalls, local = false, writes = false) =>
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
}

/** Measures and prints baton beside its floor and the LangGraph peers in interleaved rounds (bench/interleaved.ts). */
async function interleavedPart({ withBaton, floorChain }: BenchContext) {
  const args = ['--latency', String(latency)];
  const sessions: Partial<Record<InterleavedPeer, PeerSession>> = {};
  try {
    for (const [name, saver] of [
      ['langgraph', []],
      ['langgraphSqlite', ['--saver', 'sqlite']],
    ] as const) {
      const o = await openPeerSession('langgraph', [...args, ...saver]);
      if ('skipped' in o) console.log(`\npeer ${name} skipped in the interleaved rounds: ${o.skipped}`);
      else sessions[name] = o;
    }
    const f = await measureInterleaved(
      withBaton,
      floorChain,
      { latency, rounds: quick ? 3 : reps, chainsPerRound: quick ? 3 : 10 },
      sessions,
    );
    print(
      `baton, its floor and LangGraph, ${f.rounds} interleaved rounds of ${f.chainsPerRound} chains of 10 handoffs (ms a handoff: median of rounds; baton over it: median of each round's ratio)`,
      interleavedRows(f),
    );
    return { ...f, peers: Object.fromEntries(Object.entries(sessions).map(([k, p]) => [k, p.ready])) };
  } finally {
    await Promise.all(Object.values(sessions).map((p) => p.close()));
  }
}

/** Measures and prints the replay of a ~1,000-event chain beside the floor's (bench/replay.ts). */
async function replayPart({ env, withBaton, floorChain }: BenchContext) {
  const r = await replayCost(env, withBaton, floorChain, reps);
  print('Replay of ~1,000 history events (determinism check, median ms)', [
    { history: `baton chain (${r.batonEvents} events)`, ms: r.batonMs, 'ms per 1,000 events': r.batonMsPer1000 },
    { history: `floor (${r.floorEvents} events)`, ms: r.floorMs, 'ms per 1,000 events': r.floorMsPer1000 },
  ]);
  return r;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
