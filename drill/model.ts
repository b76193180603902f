/**
 * `npm run drill -- model --cases N --seed S`: the model-based harness (test/model/) at length —
 * generated sequences of what users and operators do, with worker SIGKILLs, server restarts and
 * redeploys among them, every invariant checked after every step and at the end. A failing
 * sequence is shrunk, saved as a regression case (`<dir>/model-regressions/`), and the run goes
 * on with the next seed until N sequences ran.
 */
import path from 'node:path';
import { KNOWN_OPEN } from '../test/model/known';
import { modelRun, type ModelRunReport } from '../test/model/run';
import { ModelSystem } from '../test/model/system';
import { seconds, type Cell } from './report';
import type { DrillSettings } from './run';
import type { DrillReport } from './sigkill';

/** Settings of the model drill. */
export interface ModelSettings {
  /** Sequences to run. */
  modelCases: number;
  /** Commands per sequence at most. */
  maxCommands: number;
  /** Runs spent shrinking each failing sequence. */
  shrinkRuns: number;
  /** Count violations of known open defects as broken. */
  strict: boolean;
  /** Start no sequence after this long (ms); 0: no limit. */
  modelTimeMs: number;
}

export async function modelDrill(s: DrillSettings & ModelSettings): Promise<DrillReport> {
  const dir = path.join(s.dir, 'model');
  const system = await ModelSystem.create({ dir, workers: s.workers });
  const reports: ModelRunReport[] = [];
  const started = Date.now();
  try {
    for (let done = 0, k = 0; done < s.modelCases; k++) {
      const left = s.modelTimeMs > 0 ? s.modelTimeMs - (Date.now() - started) : undefined;
      if (left !== undefined && left <= 0) break;
      const r = await modelRun(system, {
        ...(left !== undefined ? { timeLimitMs: left } : {}),
        seed: s.seed + k,
        cases: s.modelCases - done,
        maxCommands: s.maxCommands,
        shrinkRuns: s.shrinkRuns,
        strict: s.strict,
        saveDir: path.join(s.dir, 'model-regressions'),
        log: (line) => console.log(`${seconds(Date.now() - started)} ${line}`),
      });
      reports.push(r);
      done += r.sequences;
      if (r.sequences === 0) break;
    }
  } finally {
    await system.close();
  }
  const sum = (f: (r: ModelRunReport) => number) => reports.reduce((n, r) => n + f(r), 0);
  const operations: Record<string, number> = {};
  const known: Record<string, number> = {};
  for (const r of reports) {
    for (const [op, n] of Object.entries(r.operations)) operations[op] = (operations[op] ?? 0) + n;
    for (const [d, n] of Object.entries(r.known)) known[d] = (known[d] ?? 0) + n;
  }
  const f = system.figures;
  const failures = reports.flatMap((r) => (r.failure ? [r.failure] : []));
  return {
    title: `Model-based drill: ${sum((r) => r.sequences)} generated sequences of at most ${s.maxCommands} commands, ${s.workers} worker processes, seeds ${s.seed}…${s.seed + reports.length - 1}${s.strict ? ', known defects counted' : ''}`,
    summary: {
      drill: 'model',
      sequences: sum((r) => r.sequences),
      steps: sum((r) => r.steps),
      chains: sum((r) => r.chains),
      conversations: sum((r) => r.conversations),
      kills: f.kills,
      'server restarts': f.serverRestarts,
      'overlapping call attempts': system.hosts.overlapped,
      redeploys: f.redeploys.drain + f.redeploys.side_by_side + f.redeploys.v1_gone,
      'cli runs': f.cliRuns,
      'invariants checked': sum((r) => r.checks),
      broken: sum((r) => r.broken),
      'cut by the time budget': sum((r) => r.cut),
      'known open': Object.values(known).reduce((n, k) => n + k, 0),
      time: seconds(Date.now() - started),
    },
    faults: Object.entries(operations)
      .sort((a, b) => b[1] - a[1])
      .map(([operation, n]): Record<string, Cell> => ({ operation, runs: n })),
    tables: [
      {
        title: 'redeploys',
        rows: [
          {
            'v1 draining (Worker Deployments)': f.redeploys.drain,
            'side by side': f.redeploys.side_by_side,
            'v1 gone': f.redeploys.v1_gone,
            'side by side, v1 retired at the finish': f.v1Retired,
          },
        ],
      },
      ...(Object.keys(known).length > 0
        ? [
            {
              title: `known open defects (test/model/known.ts; ${KNOWN_OPEN.length} listed)`,
              rows: Object.entries(known).map(([defect, n]): Record<string, Cell> => ({ defect, violations: n })),
            },
          ]
        : []),
    ],
    problems: failures.map(
      (x) =>
        `seed ${x.seed} (path ${x.path ?? '?'}, ${x.lane}, shrunk over ${x.shrinks} runs to ${x.steps.length} steps${x.file ? `, saved as ${x.file}` : ''}):\n    ${x.violations.join('\n    ')}\n    steps: ${x.steps.map((st) => `${st.op} ${JSON.stringify(st.params)}`).join(' → ')}`,
    ),
    details: reports,
  };
}
