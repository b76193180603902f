/**
 * The orchestration cost per handoff: sequential chains of 10 handoffs on baton, beside its floor
 * (remote and local, with and without a handoff's writes), baton on an untuned dev server and on
 * one keeping its state in a file, the OpenAI Agents SDK in-process, and the peers' rows.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Baton } from '../../src/client/baton';
import type { RunOptions } from '../../src/common/options';
import { startDevServer } from '../../src/devserver/server';
import { createWorker } from '../../src/worker';
import { sdkChain } from '../agentsSdk';
import { median, round, timeRuns } from '../lib';
import { chainTeam } from '../teams';
import { print, type BenchContext } from './context';

/** Measures and prints the cost per handoff; resolves to the figures results.json records as `perHandoff`. */
export async function handoffPart(ctx: BenchContext): Promise<Record<string, number>> {
  const { latency, reps, withBaton, floorChain, peers } = ctx;
  const handoffs = 10;
  const steps = 1 + (handoffs + 1); // loadTeam and the model calls: the activities a chain needs
  const batonTimes = await withBaton(chainTeam(handoffs, latency), 'bench-chain', (b) =>
    timeRuns(reps, () => b.run('c0', 'go')),
  );
  const perHandoff = (t: number[]) => median(t) / handoffs;
  /** A table row: `system`'s time per handoff, and its ratio to baton's. */
  const row = (system: string, t: number[], digits?: number) => ({
    system,
    'ms/handoff': round(perHandoff(t), digits),
    ratio: round(median(t) / median(batonTimes), digits === undefined ? undefined : digits + 1),
  });
  const rows: Record<string, string | number>[] = [
    { system: 'baton (durable)', 'ms/handoff': round(perHandoff(batonTimes)), ratio: 1 },
  ];
  const recorded: Record<string, number> = { handoffsPerChain: handoffs, batonMs: round(perHandoff(batonTimes)) };
  // baton's figure with local model calls, for the peers that run theirs so (measured with the floor's rows).
  let batonLocalPerHandoff: number | undefined;
  if (ctx.selected('handoff')) {
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
    const untunedTimes = await chainsOn({ tuned: false }, handoffs, reps, latency);
    // A server that keeps its state in a file, as a durable one must (the server above keeps it in memory).
    const fileTimes = await chainsOn({ dbFilename: 'bench.db' }, handoffs, reps, latency);
    const fileLocalTimes = await chainsOn({ dbFilename: 'bench.db' }, handoffs, reps, latency, {
      modelActivity: 'local',
    });
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
      row(`floor: ${steps} no-op activities`, floorTimes),
      row("baton, model calls as local activities (modelActivity: 'local')", localTimes),
      row(`floor: ${steps} no-op local activities`, floorLocalTimes),
      row("floor + a handoff's writes (search attributes, memo record)", floorWritesTimes),
      row("floor local + a handoff's writes", floorLocalWritesTimes),
      row('baton on an untuned dev server (MaxPollRPS 20)', untunedTimes),
      row('baton on a dev server keeping its state in a file', fileTimes),
      row('baton, local model calls, on a dev server keeping its state in a file', fileLocalTimes),
      row('OpenAI Agents SDK, in-process', sdkTimes, 3),
    );
  }
  for (const p of peers?.perHandoff ?? []) {
    // Like with like: a peer's local-activity mode against baton's local model calls, when measured.
    const ours = p.local && batonLocalPerHandoff !== undefined ? batonLocalPerHandoff : perHandoff(batonTimes);
    p.figures.batonOverPerHandoff = round(ours / p.ms, 2);
    rows.push({ system: p.system, 'ms/handoff': round(p.ms, 3), ratio: round(p.ms / perHandoff(batonTimes), 3) });
  }
  print('Orchestration cost per handoff (median ms, chains of 10 handoffs, sequential)', rows);
  return recorded;
}

/** Chains run on a dev server of their own, started with `options` (as `temporal server start-dev` comes, or keeping its state in a file). */
async function chainsOn(
  options: Parameters<typeof startDevServer>[0],
  handoffs: number,
  reps: number,
  latency: number,
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
