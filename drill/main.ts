/**
 * `npm run drill -- [sigkill | server | load | fuzz | redeploy | spend | experiment | model | bounds | all] [flags]`:
 * fault, load, fuzzing, spend, experiment, model-based and bounds drills against real Temporal
 * servers and real workers, each ending with a table. Exits 1 when a drill found a problem.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { boundsDrill } from './bounds';
import { experimentDrill } from './experiment';
import { fuzzDrill } from './fuzz';
import { httpFuzzDrill } from './httpFuzz';
import { loadDrill } from './load';
import { modelDrill, type ModelSettings } from './model';
import { redeployDrill, type RedeploySettings } from './redeploy';
import { formatTable } from './report';
import type { DrillSettings } from './run';
import { serverDrill } from './server';
import { sigkillDrill, type DrillReport } from './sigkill';
import { spendDrill } from './spend';

const DRILLS = ['sigkill', 'server', 'load', 'fuzz', 'redeploy', 'spend', 'experiment', 'model', 'bounds'] as const;

const USAGE = `usage: npm run drill -- [sigkill | server | load | fuzz | redeploy | spend | experiment | model | bounds | all] [flags]   (or --only <drill>; default all)

  --chains N               sigkill, server: chains per run (default 50)
  --workers N              worker processes (default 2)
  --seed N                 seed of the drill's random choices (default: the clock)
  --stagger MS             start the chains over this long (default 200 per chain)
  --approval-delay MIN-MAX ms before a decision is sent (default 500-3000)
  --deadline MS            chains still running this long after the last start are stuck (default 180000)
  --heartbeat-timeout D    run option heartbeatTimeout, e.g. "3 seconds" (default: baton's, 3 seconds)
  --lost-worker-retries N  run option lostWorkerRetries (default: baton's, 10; 0 counts a lost worker as an attempt)
  --model-delay MS         duration of each scripted model call (default 800)
  --tool-delay MS          duration of each tool call after its side effect (default 500)
  --kill-every MIN-MAX     sigkill: ms between kills (default 1500-4000)
  --long-call MS           sigkill: long-call mode: each chain's first tool call takes MS, and its
                           worker is killed --kills-per-call times during it (default off)
  --kills-per-call N       sigkill, long-call mode: kills during each long call (default 6, one more
                           than the default retry budget of 5 attempts)
  --restarts N             server: restarts of the dev server (default 3)
  --down MIN-MAX           server: ms the server stays down (default 1000-4000)
  --load-chains N          load: chains started at once (default 1000)
  --load-workers LIST      load: worker processes of each burst run, e.g. 1,2 (default 1,2)
  --waiting N              load: chains waiting for approval, then decided (default 10000)
  --cache N                load: maxCachedWorkflows of the worker the waiting chains run on (default 500)
  --load-concurrency N     load: starts, signals and checks in flight at once (default 200)
  --load-deadline MS       load: how long chains may take after the last start or decision (default 1800000)
  --fuzz-runs N            fuzz: generated scenarios (default 400)
  --fuzz-lanes N           fuzz: scenarios run in parallel, each lane with seed+lane (default 2)
  --fuzz-time MS           fuzz: a lane stops after this long (default 3600000)
  --hostile-runs N         fuzz: generated hostile-input cases, each to a waiting chain and a conversation (default 200)
  --http-fuzz-requests N   fuzz: requests generated from the service's /openapi.json (default 3000)
  --redeploy-chains N      redeploy: chains of each of the four kinds waiting when v2 comes (default 5)
  --conversations N        redeploy: conversations between turns when v2 comes (default 5)
  --new-chains N           redeploy: chains started once v2 is deployed (default 5)
  --mismatch-timeout D     redeploy: the chains' teamMismatchTimeout (default "10 seconds")
  --spend-chains N         spend: chains of one tenant started at once under a daily spend limit (default 100)
  --experiment-chains N    experiment: chains split between the two variants (default 200)
  --cases N                model: generated sequences (default 500)
  --max-commands N         model: commands generated per sequence at most (default 30; those that do not apply are skipped)
  --shrink-runs N          model: runs spent shrinking a failing sequence (default 40)
  --strict yes|no          model: count violations of known open defects (test/model/known.ts) as broken (default no)
  --model-time MS          model: start no sequence after this long, and cut the one running then after its step (default: none)
  --dir PATH               logs, side-effect logs and the database (default: a new temp dir)`;

function range(text: string, flag: string): [number, number] {
  const m = /^(\d+)(?:-(\d+))?$/.exec(text);
  if (!m) throw new Error(`${flag} wants MIN-MAX in ms, got ${JSON.stringify(text)}`);
  const min = Number(m[1]);
  return [min, m[2] === undefined ? min : Math.max(min, Number(m[2]))];
}

function count(text: string, flag: string): number {
  if (!/^\d+$/.test(text)) throw new Error(`${flag} wants a whole number, got ${JSON.stringify(text)}`);
  return Number(text);
}

function yesNo(text: string, flag: string): boolean {
  if (text !== 'yes' && text !== 'no') throw new Error(`${flag} wants yes or no, got ${JSON.stringify(text)}`);
  return text === 'yes';
}

function counts(text: string, flag: string): number[] {
  const values = text.split(',').map((v) => count(v.trim(), flag));
  if (values.some((v) => v < 1))
    throw new Error(`${flag} wants whole numbers of at least 1, got ${JSON.stringify(text)}`);
  return values;
}

/** Parse the command line into the drills to run and their settings. */
export function parseArgs(argv: string[]): {
  drills: string[];
  settings: DrillSettings & RedeploySettings & ModelSettings & { spendChains: number; experimentChains: number };
} {
  let which = 'all';
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-h' || a === '--help') throw new Error(USAGE);
    if (a === '--only') {
      const value = argv[++i];
      if (value === undefined) throw new Error(`--only needs a drill\n\n${USAGE}`);
      which = value;
    } else if (a.startsWith('--')) {
      const value = argv[++i];
      if (value === undefined) throw new Error(`${a} needs a value\n\n${USAGE}`);
      flags.set(a, value);
    } else which = a;
  }
  const known = [
    ...[
      '--chains',
      '--workers',
      '--seed',
      '--stagger',
      '--approval-delay',
      '--deadline',
      '--heartbeat-timeout',
      '--model-delay',
      '--tool-delay',
      '--kill-every',
    ],
    ...['--long-call', '--kills-per-call', '--lost-worker-retries', '--restarts', '--down', '--dir'],
    ...[
      '--load-chains',
      '--load-workers',
      '--waiting',
      '--cache',
      '--load-concurrency',
      '--load-deadline',
      '--fuzz-runs',
      '--fuzz-lanes',
      '--fuzz-time',
      '--hostile-runs',
      '--http-fuzz-requests',
    ],
    ...[
      '--redeploy-chains',
      '--conversations',
      '--new-chains',
      '--mismatch-timeout',
      '--spend-chains',
      '--experiment-chains',
      '--model-time',
    ],
    ...['--cases', '--max-commands', '--shrink-runs', '--strict'],
  ];
  for (const f of flags.keys()) if (!known.includes(f)) throw new Error(`unknown flag ${f}\n\n${USAGE}`);
  if (![...DRILLS, 'all'].includes(which)) throw new Error(`unknown drill ${JSON.stringify(which)}\n\n${USAGE}`);
  const get = <T>(flag: string, parse: (v: string, f: string) => T, fallback: T): T =>
    flags.has(flag) ? parse(flags.get(flag)!, flag) : fallback;
  const chains = get('--chains', count, 50);
  return {
    drills: which === 'all' ? [...DRILLS] : [which],
    settings: {
      chains,
      workers: Math.max(1, get('--workers', count, 2)),
      seed: get('--seed', count, Date.now() % 1_000_000),
      staggerMs: get('--stagger', count, 200 * chains),
      approvalDelayMs: get('--approval-delay', range, [500, 3000]),
      deadlineMs: get('--deadline', count, 180_000),
      heartbeatTimeout: flags.get('--heartbeat-timeout'),
      modelDelayMs: get('--model-delay', count, 800),
      toolDelayMs: get('--tool-delay', count, 500),
      killEveryMs: get('--kill-every', range, [1500, 4000]),
      longCallMs: flags.has('--long-call') ? count(flags.get('--long-call')!, '--long-call') : undefined,
      killsPerCall: get('--kills-per-call', count, 6),
      lostWorkerRetries: flags.has('--lost-worker-retries')
        ? count(flags.get('--lost-worker-retries')!, '--lost-worker-retries')
        : undefined,
      restarts: get('--restarts', count, 3),
      downMs: get('--down', range, [1000, 4000]),
      dir: flags.get('--dir') ?? fs.mkdtempSync(path.join(os.tmpdir(), 'baton-drill-')),
      loadChains: get('--load-chains', count, 1000),
      loadWorkers: get('--load-workers', counts, [1, 2]),
      waitingChains: get('--waiting', count, 10_000),
      cacheSize: Math.max(1, get('--cache', count, 500)),
      loadConcurrency: Math.max(1, get('--load-concurrency', count, 200)),
      loadDeadlineMs: get('--load-deadline', count, 1_800_000),
      fuzzRuns: get('--fuzz-runs', count, 400),
      fuzzLanes: Math.max(1, get('--fuzz-lanes', count, 2)),
      fuzzTimeMs: get('--fuzz-time', count, 3_600_000),
      hostileRuns: get('--hostile-runs', count, 200),
      httpFuzzRequests: get('--http-fuzz-requests', count, 3_000),
      perKind: Math.max(1, get('--redeploy-chains', count, 5)),
      conversations: get('--conversations', count, 5),
      newChains: get('--new-chains', count, 5),
      mismatchTimeout: flags.get('--mismatch-timeout') ?? '10 seconds',
      spendChains: Math.max(1, get('--spend-chains', count, 100)),
      experimentChains: Math.max(2, get('--experiment-chains', count, 200)),
      modelCases: get('--cases', count, 500),
      maxCommands: Math.max(1, get('--max-commands', count, 30)),
      shrinkRuns: get('--shrink-runs', count, 40),
      strict: get('--strict', yesNo, false),
      modelTimeMs: get('--model-time', count, 0),
    },
  };
}

function print(report: DrillReport): void {
  console.log(`\n${report.title}\n`);
  console.log(formatTable([report.summary]));
  console.log('');
  console.log(formatTable(report.faults));
  for (const t of report.tables ?? []) console.log(`\n${t.title}\n\n${formatTable(t.rows)}`);
  if (report.problems.length > 0) console.log(`\nproblems:\n${report.problems.map((p) => `  - ${p}`).join('\n')}`);
}

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs(process.argv.slice(2));
  } catch (err) {
    console.error((err as Error).message);
    return 2;
  }
  const { drills, settings } = parsed;
  fs.mkdirSync(settings.dir, { recursive: true });
  console.log(`drill ${drills.join(' + ')}: seed ${settings.seed}, working directory ${settings.dir}`);
  const reports: DrillReport[] = [];
  for (const drill of drills) {
    // The fuzzing drill fuzzes chains (generated scenarios), then the HTTP service (generated requests).
    const runs = {
      sigkill: [sigkillDrill],
      server: [serverDrill],
      load: [loadDrill],
      fuzz: [fuzzDrill, httpFuzzDrill],
      redeploy: [redeployDrill],
      spend: [spendDrill],
      experiment: [experimentDrill],
      model: [modelDrill],
      bounds: [boundsDrill],
    }[drill as (typeof DRILLS)[number]];
    for (const run of runs) {
      const report = await run(settings);
      print(report);
      reports.push(report);
    }
  }
  if (reports.length > 1) {
    console.log('\nsummary\n');
    console.log(formatTable(reports.map((r) => r.summary)));
  }
  fs.writeFileSync(path.join(settings.dir, 'report.json'), JSON.stringify(reports, null, 2));
  return reports.some((r) => r.problems.length > 0) ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
