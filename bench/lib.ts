/** Measuring helpers: repeated timings, percentiles, peak memory, the peers measured beside baton. */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Baton } from '../src/client/baton';
import type { CreateWorkerOptions } from '../src/worker';

/** Runs `fn` with a Baton client while a worker for `team` polls `queue`. */
export type WithBaton = <T>(
  team: CreateWorkerOptions['team'],
  queue: string,
  fn: (b: Baton) => Promise<T>,
  extra?: Partial<CreateWorkerOptions>,
) => Promise<T>;

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export const median = (values: number[]) => percentile(values, 50);

/** Time `fn` `reps` times after `warmup` unmeasured runs; milliseconds. */
export async function timeRuns(reps: number, fn: () => Promise<unknown>, warmup = 1): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return times;
}

/** Samples this process's RSS until stopped; resolves to the peak in MB. */
export function rssSampler(everyMs = 50): { stop: () => number } {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage().rss) / 2 ** 20;
    },
  };
}

export const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/** A plain table for the terminal. */
export function table(rows: Record<string, string | number>[]): string {
  const cols = Object.keys(rows[0] ?? {});
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(width[i]!)).join('  ');
  return [
    line(cols),
    line(width.map((w) => '-'.repeat(w))),
    ...rows.map((r) => line(cols.map((c) => String(r[c])))),
  ].join('\n');
}

/** A burst of chains started at once, as a peer reports it: raw milliseconds and its process's peak RSS. */
export interface PeerBurst {
  totalMs: number;
  latenciesMs: number[];
  peakRssMb: number;
}

/** What bench/peers/temporal-openai-agents/main.ts prints, per way of running the model calls. */
export interface TemporalAgentsReport {
  versions: Record<string, string>;
  handoffs: number;
  burstHandoffs: number;
  chains: number;
  modes: Record<'activity' | 'localActivity', { chainMs: number[]; historyEvents: number; burst: PeerBurst }>;
}

/** What bench/peers/langgraph/main.ts prints. */
export interface LangGraphReport {
  saver: 'memory' | 'sqlite';
  versions: Record<string, string>;
  handoffs: number;
  chainMs: number[];
  checkpoints: number;
}

/** A peer's report, or why there is none. */
export type PeerOutcome<T> = { report: T } | { skipped: string };

/**
 * Runs the measuring program of the peer in `bench/peers/<name>` (`main.ts`, under this checkout's
 * tsx) and reads the JSON line it prints; its logs go to stderr. A peer has its own dependencies:
 * on first use they are installed with `npm ci --prefix bench/peers/<name>`. When npm ci refuses
 * the lockfile as out of sync (a lockfile written behind a registry mirror that serves one
 * platform's native builds, such as @swc/core's, lists no other platform's), they are installed
 * with `npm install --no-save`, which follows the lockfile where it can and leaves it unchanged.
 * A peer that cannot be installed or fails is skipped with the reason and the command to run by hand.
 */
export async function runPeer<T>(name: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<PeerOutcome<T>> {
  const installed = await installPeer(name);
  if (installed) return installed;
  const dir = path.join(__dirname, 'peers', name);
  const main = path.join(dir, 'main.ts');
  const { code, output } = await runChild(process.execPath, [require.resolve('tsx/cli'), main, ...args], {
    cwd: dir,
    env: { ...process.env, ...env },
    logs: true,
  });
  const last = output.trim().split('\n').at(-1) ?? '';
  if (code !== 0 || !last.startsWith('{')) {
    return {
      skipped: `its measuring program failed (exit ${code}, output above); run it alone with \`npx tsx ${path.relative(process.cwd(), main)} ${args.join(' ')}\``,
    };
  }
  return { report: JSON.parse(last) as T };
}

/** Installs the dependencies of the peer in `bench/peers/<name>` if they are not there (see {@link runPeer}); why it could not, or nothing. */
export async function installPeer(name: string): Promise<{ skipped: string } | undefined> {
  const dir = path.join(__dirname, 'peers', name);
  const prefix = path.relative(process.cwd(), dir) || '.';
  if (fs.existsSync(path.join(dir, 'node_modules', '.package-lock.json'))) return undefined;
  console.log(`\ninstalling the ${name} peer: npm ci --prefix ${prefix}`);
  const npm = ['--prefix', dir, '--no-audit', '--no-fund'];
  const ci = await runChild('npm', ['ci', ...npm]);
  if (ci.code === 0) return undefined;
  console.log(
    `npm ci refused: ${ci.output.split('\n').find((l) => /^npm error (?!code )\S/.test(l)) ?? `exit ${ci.code}`}; installing from the lockfile with npm install --no-save`,
  );
  const install = await runChild('npm', ['install', '--no-save', ...npm]);
  if (install.code === 0) return undefined;
  console.error(install.output.trim().split('\n').slice(-20).join('\n'));
  return {
    skipped: `could not install its dependencies; install them with \`npm ci --prefix ${prefix}\` (or \`npm install --prefix ${prefix}\`) and run again`,
  };
}

/**
 * A child process and what it printed: its stdout, or with `logs` its stdout while its stderr
 * (the logs) goes to ours; without `logs` its stderr too, for npm, whose output matters only when it fails.
 */
function runChild(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; logs?: boolean } = {},
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', options.logs ? process.stderr : 'pipe'],
    });
    let output = '';
    const collect = (chunk: Buffer) => (output += chunk.toString());
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    child.on('error', (err) => resolve({ code: null, output: `${output}\n${command}: ${err.message}` }));
    child.on('close', (code) => resolve({ code, output }));
  });
}
