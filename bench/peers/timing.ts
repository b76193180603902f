/**
 * Timing for the peers' measuring programs. They report raw milliseconds; bench/run.ts takes the
 * medians and ratios with the same code it uses for baton.
 */

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

/** What a burst of chains started at once took: the whole burst, each chain, and this process's peak RSS. */
export interface BurstTimes {
  totalMs: number;
  latenciesMs: number[];
  peakRssMb: number;
}

/** Start `count` chains at once and wait for all of them. */
export async function burst(count: number, start: () => Promise<unknown>): Promise<BurstTimes> {
  let peak = process.memoryUsage().rss;
  // Sampled every 50 ms, as bench/lib.ts samples baton's worker.
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  const t0 = performance.now();
  try {
    const latenciesMs = await Promise.all(
      Array.from({ length: count }, async () => {
        const t = performance.now();
        await start();
        return performance.now() - t;
      }),
    );
    return {
      totalMs: performance.now() - t0,
      latenciesMs,
      peakRssMb: Math.max(peak, process.memoryUsage().rss) / 2 ** 20,
    };
  } finally {
    clearInterval(sampler);
  }
}

/** A model's answer takes this long when a bench runs with `--latency`. */
export const sleep = (ms: number) => (ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve());
