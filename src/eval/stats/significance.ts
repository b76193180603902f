/**
 * Whether two variants differ by more than chance: a two-proportion z-test for rates (success,
 * approval rejections, chains with a guardrail trip) and the Mann-Whitney U test for values of
 * unknown distribution (latency, tokens, handoffs), each with its two-sided p-value from the
 * normal approximation. Pure.
 */

/** A test's result: the statistic, its two-sided p-value, and whether p is below `alpha`. */
export interface TestResult {
  test: 'two-proportion z' | 'Mann-Whitney U';
  statistic: number;
  p: number;
  significant: boolean;
}

/** The level below which a difference counts as significant. */
export const ALPHA = 0.05;

/** The standard normal distribution's CDF (Abramowitz and Stegun 7.1.26, error under 1.5e-7). */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

function twoSided(z: number): number {
  return Math.min(1, 2 * (1 - normalCdf(Math.abs(z))));
}

/** Two-proportion z-test (pooled) of `a` successes out of `n` against `b` out of `m`; `undefined` without data. */
export function twoProportionZ(a: number, n: number, b: number, m: number): TestResult | undefined {
  if (n === 0 || m === 0) return undefined;
  const pooled = (a + b) / (n + m);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / n + 1 / m));
  const z = se === 0 ? 0 : (a / n - b / m) / se;
  const p = se === 0 ? 1 : twoSided(z);
  return { test: 'two-proportion z', statistic: z, p, significant: p < ALPHA };
}

/** Mann-Whitney U test of samples `a` and `b` (ties get mean ranks, the variance its tie correction); `undefined` without data. */
export function mannWhitneyU(a: readonly number[], b: readonly number[]): TestResult | undefined {
  const n = a.length;
  const m = b.length;
  if (n === 0 || m === 0) return undefined;
  const all = [...a.map((v) => ({ v, first: true })), ...b.map((v) => ({ v, first: false }))].sort((x, y) => x.v - y.v);
  const ranks = new Array<number>(all.length);
  let ties = 0;
  for (let i = 0; i < all.length; ) {
    let j = i;
    while (j + 1 < all.length && all[j + 1]!.v === all[i]!.v) j++;
    const rank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) ranks[k] = rank;
    const t = j - i + 1;
    ties += t ** 3 - t;
    i = j + 1;
  }
  const rankSum = all.reduce((s, x, i) => (x.first ? s + ranks[i]! : s), 0);
  const u = rankSum - (n * (n + 1)) / 2;
  const mean = (n * m) / 2;
  const N = n + m;
  const variance = ((n * m) / 12) * (N + 1 - ties / (N * (N - 1)));
  const z = variance <= 0 ? 0 : (u - mean) / Math.sqrt(variance);
  const p = variance <= 0 ? 1 : twoSided(z);
  return { test: 'Mann-Whitney U', statistic: u, p, significant: p < ALPHA };
}

/** The `q` quantile (0 to 1) of `values` by the nearest rank; `undefined` for none. */
export function quantile(values: readonly number[], q: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}
