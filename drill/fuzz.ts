/**
 * The fuzzing drill: the property-based runs of `test/property` (generated scripted models, run
 * options and approval decisions, checked against the chain invariants of
 * test/helpers/fuzzRun.ts), many more of them, in parallel lanes of fast-check runs on one dev
 * server and in-process workers. A lane that finds a broken invariant shrinks it (within the
 * lane's time) and reports its seed, path and smallest scenario.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import fc from 'fast-check';
import { Baton, createWorker } from '../src';
import { fuzzRunner, type FuzzChainReport } from '../test/helpers/fuzzRun';
import { fuzzScenario } from '../test/helpers/fuzzScenario';
import { fuzzProviders, fuzzTeam } from '../test/helpers/fuzzTeam';
import { DrillServer } from './devserver';
import { hostileFuzz } from './hostile';
import { seconds, type Cell } from './report';
import type { DrillSettings } from './run';
import type { DrillReport } from './sigkill';

interface LaneResult {
  lane: number;
  seed: number;
  runs: number;
  chains: FuzzChainReport[];
  ms: number;
  failure?: string;
}

/** Run the fuzzing drill against `TEMPORAL_ADDRESS`, or a dev server of its own. */
export async function fuzzDrill(s: DrillSettings): Promise<DrillReport> {
  quietWorkers();
  const server = process.env.TEMPORAL_ADDRESS
    ? undefined
    : await DrillServer.create({ logFile: path.join(s.dir, 'fuzz-server.log') });
  await server?.start();
  const address = server?.address ?? process.env.TEMPORAL_ADDRESS!;
  const connection = await Connection.connect({ address });
  const native = await NativeConnection.connect({ address });
  const taskQueue = `drill-fuzz-${Date.now().toString(36)}`;
  const worker = await createWorker({
    team: fuzzTeam,
    connection: native,
    taskQueue,
    providers: fuzzProviders(),
    worker: { identity: 'drill-fuzz' },
  });
  const baton = new Baton({ client: new Client({ connection }), taskQueue });
  const lanes = Math.max(1, s.fuzzLanes);
  const perLane = Math.ceil(s.fuzzRuns / lanes);
  try {
    const results = await worker.runUntil(
      Promise.all(Array.from({ length: lanes }, (_, lane) => runLane(s, baton, taskQueue, lane, perLane))),
    );
    const hostile = s.hostileRuns > 0 ? await hostileFuzz(s, native, new Client({ connection })) : undefined;
    const chains = results.flatMap((r) => r.chains);
    const problems = [
      ...results.flatMap((r) => (r.failure ? [`lane ${r.lane} (seed ${r.seed}): ${r.failure}`] : [])),
      ...(hostile?.problems ?? []),
    ];
    fs.writeFileSync(path.join(s.dir, 'fuzz-chains.json'), JSON.stringify(chains, null, 1));
    return {
      title: `Fuzzing drill: ${s.fuzzRuns} generated scenarios in ${lanes} lanes (seeds ${s.seed}…${s.seed + lanes - 1}), one worker`,
      summary: {
        drill: 'fuzz',
        ...row(
          results.reduce((n, r) => n + r.runs, 0),
          chains,
          Math.max(...results.map((r) => r.ms)),
        ),
      },
      faults: results.map((r): Record<string, Cell> => ({
        lane: r.lane,
        seed: r.seed,
        ...row(r.runs, r.chains, r.ms),
      })),
      tables: [
        { title: 'how the chains ended', rows: outcomeRows(chains) },
        ...(hostile ? [{ title: 'hostile input to waiting chains and conversations', rows: [hostile.row] }] : []),
      ],
      problems,
      details: { outcomes: countBy(chains.map((c) => c.outcome)) },
    };
  } finally {
    await native.close();
    await connection.close();
    await server?.kill();
  }
}

/** The in-process worker logs errors only: the chains that fail on purpose would fill the screen. */
function quietWorkers(): void {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // Already installed by an earlier drill of this process.
  }
}

async function runLane(
  s: DrillSettings,
  baton: Baton,
  taskQueue: string,
  lane: number,
  numRuns: number,
): Promise<LaneResult> {
  const seed = s.seed + lane;
  const chains: FuzzChainReport[] = [];
  let runs = 0;
  let shrinking = false;
  const started = Date.now();
  // Figures count the generated scenarios; once one breaks an invariant, the runs that follow shrink it.
  const predicate = fuzzRunner(baton, `${taskQueue}-l${lane}`, {
    deadlineMs: s.deadlineMs,
    onReport: (reports) => {
      if (shrinking) return;
      runs++;
      chains.push(...reports);
      shrinking = reports.some((r) => r.violations.length > 0);
    },
  });
  const details = await fc.check(fc.asyncProperty(fuzzScenario, predicate), {
    seed,
    numRuns,
    interruptAfterTimeLimit: s.fuzzTimeMs,
    markInterruptAsFailure: false,
  });
  let failure: string | undefined;
  if (details.failed) {
    failure = `broken invariant after ${details.numRuns} runs (path ${details.counterexamplePath}, shrunk ${details.numShrinks} times): ${String(details.errorInstance)}`;
    const file = path.join(s.dir, `fuzz-counterexample-lane${lane}.json`);
    fs.writeFileSync(
      file,
      JSON.stringify(
        {
          seed,
          path: details.counterexamplePath,
          counterexample: details.counterexample,
          error: String(details.errorInstance),
        },
        null,
        2,
      ),
    );
    failure += `\n    smallest scenario in ${file}`;
  }
  return { lane, seed, runs, chains, ms: Date.now() - started, failure };
}

function row(runs: number, chains: FuzzChainReport[], ms: number): Record<string, Cell> {
  return {
    scenarios: runs,
    chains: chains.length,
    completed: chains.filter((c) => c.outcome === 'completed').length,
    'failed (typed)': chains.filter(
      (c) =>
        c.outcome !== 'completed' &&
        c.outcome !== 'stuck' &&
        !c.outcome.startsWith('untyped') &&
        c.outcome !== 'not started',
    ).length,
    handoffs: chains.reduce((n, c) => n + c.handoffs, 0),
    'approvals decided': chains.reduce((n, c) => n + c.approvalsDecided, 0),
    'broken invariants': chains.filter((c) => c.violations.length > 0).length,
    time: seconds(ms),
  };
}

function outcomeRows(chains: FuzzChainReport[]): Record<string, Cell>[] {
  return Object.entries(countBy(chains.map((c) => c.outcome)))
    .sort((a, b) => b[1] - a[1])
    .map(([outcome, n]) => ({ outcome, chains: n }));
}

function countBy(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const v of values) counts[v] = (counts[v] ?? 0) + 1;
  return counts;
}
