/**
 * Running many generated sequences: fast-check generates each (a lane and a list of commands,
 * `fc.commands` over every operation by weight), runs it with `fc.asyncModelRun` on the real
 * system, and shrinks a failing one (within a budget of runs: each is minutes of real time) to the
 * smallest sequence that still breaks an invariant, which is saved as a regression case.
 * Used by `npm test` (test/model/model.test.ts, regressionSuite.ts) and `npm run drill -- model`.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import type { Harness, HarnessOptions, Step } from './harness';
import type { Lane } from './model';
import { knownDefect } from './known';
import { OPERATIONS } from './operations';
import { begin, cleanup, finish, InvariantError, StepCommand } from './sequence';
import type { ModelSystem } from './system';

/** Settings of a run of sequences. */
export interface ModelRunOptions extends HarnessOptions {
  seed: number;
  /** Sequences to generate. */
  cases: number;
  /** Commands generated for a sequence at most (those that do not apply when their turn comes are skipped). @default 30 */
  maxCommands?: number;
  /** Weights by operation name over the operations' own (0 leaves one out). */
  weights?: Record<string, number>;
  /** Runs spent shrinking a failing sequence at most. @default 20 */
  shrinkRuns?: number;
  /**
   * The time budget (ms): no sequence starts after it, and a sequence running when it passes takes
   * no more steps — it is cut, driven to its end and judged as any other (its end invariants hold).
   */
  timeLimitMs?: number;
  /** Where a failing sequence is saved (a regression case), when given. */
  saveDir?: string;
}

/** A failing sequence, as a regression case saves it. */
export interface RegressionCase {
  name: string;
  /** The seed and fast-check path that generated it. */
  seed: number;
  path?: string;
  lane: Lane;
  steps: Step[];
  /** What it broke when it was found. */
  violations: string[];
  /** Set while the defect it shows is open: why the case is skipped, naming the defect. */
  skip?: string;
}

/** What a run did. */
export interface ModelRunReport {
  seed: number;
  sequences: number;
  steps: number;
  chains: number;
  conversations: number;
  operations: Record<string, number>;
  checks: number;
  /** Broken invariants found in the generated sequences (shrinking runs apart). */
  broken: number;
  /** Sequences cut short by the time budget (they ran the steps they had begun, then ended as usual). */
  cut: number;
  /** Violations of known open defects (known.ts), by defect. */
  known: Record<string, number>;
  failure?: RegressionCase & { file?: string; shrinks: number };
  ms: number;
}

/** The generated sequences: a lane, the chains and conversations it opens with, then commands. */
export function sequences(
  o: Pick<ModelRunOptions, 'maxCommands' | 'weights'>,
): fc.Arbitrary<{ lane: Lane; commands: Iterable<StepCommand> }> {
  const ops = OPERATIONS.map((op) => ({ op, weight: o.weights?.[op.name] ?? op.weight })).filter((x) => x.weight > 0);
  const commandOf = (list: typeof ops) =>
    fc.oneof(
      ...list.map(({ op, weight }) => ({
        weight,
        arbitrary: op.params.map((params) => new StepCommand({ op: op.name, params })),
      })),
    );
  const opening = fc.array(commandOf(ops.filter((x) => x.op.opens)), { minLength: 1, maxLength: 3 });
  const rest = fc.commands([commandOf(ops)], { maxCommands: o.maxCommands ?? 30, size: 'max' }) as fc.Arbitrary<
    Iterable<StepCommand>
  >;
  return fc
    .record({ lane: fc.constantFrom<Lane>('unversioned', 'unversioned', 'versioned', 'ai_sdk'), opening, rest })
    .map(({ lane, opening, rest }) => ({ lane, commands: concat(opening, rest) }));
}

/** The commands of `commands` while the time budget lasts; `cut` is called when it stops them. */
function until(commands: Iterable<StepCommand>, deadline: number, cut: () => void): Iterable<StepCommand> {
  return Object.assign(Object.create(commands) as Iterable<StepCommand>, {
    *[Symbol.iterator]() {
      for (const c of commands) {
        if (Date.now() >= deadline) return void cut();
        yield c;
      }
    },
    toString: () => String(commands),
  });
}

/** The opening commands, then fast-check's (whose shrinking and printing stay its own). */
function concat(opening: StepCommand[], rest: Iterable<StepCommand>): Iterable<StepCommand> {
  return Object.assign(Object.create(rest) as Iterable<StepCommand>, {
    *[Symbol.iterator]() {
      yield* opening;
      yield* rest;
    },
    toString: () => `${opening.map(String).join(', ')}, ${String(rest)}`,
  });
}

/** Run `o.cases` generated sequences on `system`. */
export async function modelRun(system: ModelSystem, o: ModelRunOptions): Promise<ModelRunReport> {
  const started = Date.now();
  const report: ModelRunReport = {
    seed: o.seed,
    sequences: 0,
    steps: 0,
    chains: 0,
    conversations: 0,
    operations: {},
    checks: 0,
    broken: 0,
    cut: 0,
    known: {},
    ms: 0,
  };
  const deadline = o.timeLimitMs !== undefined ? started + o.timeLimitMs : Infinity;
  let n = 0;
  let failing: { lane: Lane; steps: Step[]; violations: string[] } | undefined;
  let shrinks = 0;
  const property = fc.asyncProperty(sequences(o), async ({ lane, commands }) => {
    // Past the budget, a shrinking candidate passes at once: fast-check keeps the smallest failure it has.
    if (failing && shrinks >= (o.shrinkRuns ?? 20)) return;
    // Past the time budget nothing starts (a shrinking candidate passes, as above).
    if (Date.now() >= deadline) return;
    if (failing) shrinks++;
    const t0 = Date.now();
    const h = await begin(system, lane, `m${o.seed}-${++n}`, o);
    const t1 = Date.now();
    let t2 = t1;
    let cut = false;
    try {
      await fc.asyncModelRun(
        () => ({ model: h.model, real: h }),
        until(commands, deadline, () => (cut = true)),
      );
      t2 = Date.now();
      await finish(h);
    } catch (err) {
      if (err instanceof InvariantError) {
        if (!failing) {
          report.broken += err.violations.length;
          o.log?.(`${h.model.tag} broke ${err.violations.length} invariant(s):\n    ${err.violations.join('\n    ')}`);
        }
        failing = { lane, steps: err.steps, violations: err.violations };
      } else if (!failing) {
        // A step or the harness itself failed: kept with the steps that led there, to be shrunk and saved like a broken invariant.
        const text = err instanceof Error ? (err.stack ?? err.message) : String(err);
        o.log?.(`${h.model.tag} failed: ${text}`);
        failing = { lane, steps: [...h.steps], violations: [`[error] ${text}`] };
      }
      throw err;
    } finally {
      if (!failing || (failing && shrinks === 0)) {
        tally(report, h);
        if (cut) report.cut++;
      }
      await cleanup(h);
      const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
      o.log?.(
        `sequence ${h.model.tag} (${lane}): ${h.steps.length} steps, ${h.model.roots.length} roots in ${s(Date.now() - t0)} (begin ${s(t1 - t0)}, steps ${s(t2 - t1)}, end ${s(Date.now() - t2)})${cut ? ', cut by the time budget' : ''}${failing ? (shrinks > 0 ? `, shrinking (${shrinks})` : ', FAILED') : ''}`,
      );
    }
  });
  // The time budget is kept here, between steps: fast-check's own would abandon a running sequence (which goes on
  // in the background) and count a run with no finished sequence as a failure with no counterexample.
  const details = await fc.check(property, { seed: o.seed, numRuns: o.cases, endOnFailure: false });
  report.ms = Date.now() - started;
  if (details.failed && failing) {
    const name = `seed-${o.seed}-${failing.violations[0]?.match(/^\[([^\]]+)\]/)?.[1] ?? 'failure'}`;
    report.failure = {
      name,
      seed: o.seed,
      path: details.counterexamplePath ?? undefined,
      lane: failing.lane,
      steps: failing.steps,
      violations: failing.violations,
      shrinks,
    };
    if (o.saveDir) report.failure.file = saveCase(o.saveDir, report.failure);
  } else if (details.failed) {
    report.failure = {
      name: `seed-${o.seed}-error`,
      seed: o.seed,
      lane: 'unversioned',
      steps: [],
      violations: [String(details.errorInstance)],
      shrinks,
    };
  }
  return report;
}

function tally(report: ModelRunReport, h: Harness): void {
  report.sequences++;
  report.steps += h.steps.length;
  report.chains += h.model.roots.filter((r) => r.kind === 'chain').length;
  report.conversations += h.model.roots.filter((r) => r.kind === 'conversation').length;
  report.checks += h.model.checks;
  for (const [op, k] of h.model.ran) report.operations[op] = (report.operations[op] ?? 0) + k;
  for (const v of h.known) {
    const name = knownDefect(v)?.name ?? 'unknown';
    report.known[name] = (report.known[name] ?? 0) + 1;
  }
}

/** Save a failing sequence as a regression case; answers its file. */
export function saveCase(dir: string, c: RegressionCase): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${c.name}.json`);
  const { file: _f, shrinks: _s, ...plain } = c as RegressionCase & { file?: string; shrinks?: number };
  fs.writeFileSync(file, `${JSON.stringify(plain, null, 2)}\n`);
  return file;
}

/** The regression cases saved under `dir`. */
export function regressionCases(dir: string): RegressionCase[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as RegressionCase);
}
