/**
 * Whether two variants differ by more than chance: Fisher's exact test for rates (success,
 * approval rejections, chains with a guardrail trip) and the Mann-Whitney U test for values of
 * unknown distribution (latency, tokens, handoffs), exact for small samples (see ./rankTest.ts).
 * Each gives its two-sided p-value and the smallest p its sample sizes allow, so a report can say
 * when there are too few chains for any difference to show. The special functions come from
 * simple-statistics. Pure.
 */
import type * as SimpleStatistics from 'simple-statistics' with { 'resolution-mode': 'import' };

// simple-statistics is an ES module that ships a CommonJS build; its types are the module's.
const { errorFunction, gammaln } = require('simple-statistics') as Pick<
  typeof SimpleStatistics,
  'errorFunction' | 'gammaln'
>;

/** A test's result: the statistic, its two-sided p-value, whether p is below `alpha`, and what the samples allow. */
export interface TestResult {
  test: "Fisher's exact" | 'Mann-Whitney U';
  /** Fisher's: the difference of the two rates (first minus second); Mann-Whitney: U of the first sample. */
  statistic: number;
  p: number;
  significant: boolean;
  /** Whether `p` is exact (Fisher's always; Mann-Whitney up to `EXACT_RANKS_UP_TO` values) rather than the normal approximation. */
  exact: boolean;
  /** The sizes of the two samples (for a rate, the number of trials of each). */
  sizes: [number, number];
  /**
   * The smallest p any data of these sizes could give. When it is not below {@link ALPHA}, no
   * difference can be significant: more chains are needed (see {@link MIN_SAMPLE}).
   */
  minP: number;
}

/** The level below which a difference counts as significant. */
export const ALPHA = 0.05;

/** Samples with at most this many values in all are ranked exactly (every split counted); larger ones by the normal approximation. */
export const EXACT_RANKS_UP_TO = 60;

/**
 * The ended chains each variant needs before a difference can be significant at {@link ALPHA}:
 * while both have fewer, no data can give either test a p below 0.05 (3 against 3 gives at least
 * 0.10; 4 against 4 can give 0.029). With unequal sizes the smallest p is {@link TestResult.minP}.
 */
export const MIN_SAMPLE = 4;

/** `ln C(n, k)`: the log of the number of ways to choose `k` of `n`. */
export function lnChoose(n: number, k: number): number {
  return gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1);
}

/** P(|Z| ≥ z) for a standard normal Z: erfc(z / √2). */
export function twoSidedNormalP(z: number): number {
  return Math.min(1, 1 - errorFunction(Math.abs(z) / Math.SQRT2));
}

/**
 * Fisher's exact test (two-sided) of `a` successes out of `n` against `b` out of `m`: the
 * probability, given the totals, of a table at most as likely as the one seen. `undefined`
 * without data.
 * @example fisherExact(3, 3, 0, 3)!.p // 0.1: 3 of 3 against 0 of 3 is not significant
 */
export function fisherExact(a: number, n: number, b: number, m: number): TestResult | undefined {
  if (n === 0 || m === 0) return undefined;
  const k = a + b;
  const N = n + m;
  const lnTotal = lnChoose(N, n);
  const prob = (x: number) => Math.exp(lnChoose(k, x) + lnChoose(N - k, n - x) - lnTotal);
  const seen = prob(a);
  let p = 0;
  // Tables as likely as the one seen count (a relative tolerance, as R's fisher.test has, for rounding).
  for (let x = Math.max(0, k - m); x <= Math.min(k, n); x++) {
    const px = prob(x);
    if (px <= seen * (1 + 1e-7)) p += px;
  }
  p = Math.min(1, p);
  // The most lopsided table (one side all successes, the other none), and its mirror when the sizes are equal.
  const minP = Math.min(1, (n === m ? 2 : 1) * Math.exp(-lnChoose(N, n)));
  return {
    test: "Fisher's exact",
    statistic: a / n - b / m,
    p,
    significant: p < ALPHA,
    exact: true,
    sizes: [n, m],
    minP,
  };
}

/** The `q` quantile (0 to 1) of `values` by the nearest rank; `undefined` for none. */
export function quantile(values: readonly number[], q: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}
