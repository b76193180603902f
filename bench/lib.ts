/** Measuring helpers: repeated timings, percentiles, peak memory. */
import type { Baton } from '../src/client/baton';
import type { CreateWorkerOptions } from '../src/worker';

/** Runs `fn` with a Baton client while a worker for `team` polls `queue`. */
export type WithBaton = <T>(team: CreateWorkerOptions['team'], queue: string, fn: (b: Baton) => Promise<T>, extra?: Partial<CreateWorkerOptions>) => Promise<T>;

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
  return [line(cols), line(width.map((w) => '-'.repeat(w))), ...rows.map((r) => line(cols.map((c) => String(r[c]))))].join('\n');
}
