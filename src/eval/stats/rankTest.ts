/**
 * The Mann-Whitney U test (the Wilcoxon rank-sum test) of two samples, two-sided. For small
 * samples the p-value is exact: every way of splitting the pooled values into groups of these
 * sizes is counted (ties keep their mean ranks, so the count is exact with ties too). Larger
 * samples use the normal approximation with the tie-corrected variance and a continuity
 * correction. Pure.
 */
import { ALPHA, EXACT_RANKS_UP_TO, lnChoose, type TestResult, twoSidedNormalP } from './significance';

/**
 * Mann-Whitney U test of samples `a` and `b`; `undefined` without data.
 * @example mannWhitneyU([1, 2, 3], [4, 5, 6])!.p // 0.1: 2 of the 20 splits are as far apart
 */
export function mannWhitneyU(a: readonly number[], b: readonly number[]): TestResult | undefined {
  const n = a.length;
  const m = b.length;
  if (n === 0 || m === 0) return undefined;
  const N = n + m;
  // Ranks doubled, so mean ranks of ties stay integers.
  const { ranks, ties } = doubledRanks([...a, ...b]);
  const sumA = ranks.slice(0, n).reduce((s, r) => s + r, 0);
  const u = sumA / 2 - (n * (n + 1)) / 2;
  const minP = Math.min(1, 2 * Math.exp(-lnChoose(N, n)));
  const exact = N <= EXACT_RANKS_UP_TO;
  const p = exact ? exactP(ranks, n, sumA) : normalP(u, n, m, ties);
  return { test: 'Mann-Whitney U', statistic: u, p, significant: p < ALPHA, exact, sizes: [n, m], minP };
}

/** Twice each value's rank among `values` (ties share their mean), and the ties' sum of t³ - t. */
function doubledRanks(values: number[]): { ranks: number[]; ties: number } {
  const order = values.map((v, i) => ({ v, i })).sort((x, y) => x.v - y.v);
  const ranks = new Array<number>(values.length);
  let ties = 0;
  for (let i = 0; i < order.length;) {
    let j = i;
    while (j + 1 < order.length && order[j + 1]!.v === order[i]!.v) j++;
    // Mean rank (i + j) / 2 + 1, doubled.
    for (let k = i; k <= j; k++) ranks[order[k]!.i] = i + j + 2;
    const t = j - i + 1;
    ties += t ** 3 - t;
    i = j + 1;
  }
  return { ranks, ties };
}

/**
 * The share of the ways to pick `n` of the pooled ranks whose sum is at least as far from its
 * mean as `seen` is. Counts by sum, one value at a time: `ways[j][s]` is how many picks of `j` of
 * the values so far sum to `s`.
 */
function exactP(ranks: number[], n: number, seen: number): number {
  const max = ranks.reduce((s, r) => s + r, 0);
  const ways: Float64Array[] = Array.from({ length: n + 1 }, () => new Float64Array(max + 1));
  ways[0]![0] = 1;
  ranks.forEach((r, i) => {
    // Picks of j - 1 before this value are read before this value adds to them: j counts down.
    for (let j = Math.min(i + 1, n); j >= 1; j--) {
      const from = ways[j - 1]!;
      const to = ways[j]!;
      for (let s = max; s >= r; s--) to[s]! += from[s - r]!;
    }
  });
  const counts = ways[n]!;
  // The mean of a pick's doubled rank sum: n times the mean doubled rank, N + 1.
  const mean = n * (ranks.length + 1);
  const far = Math.abs(seen - mean);
  let total = 0;
  let asFar = 0;
  for (let s = 0; s <= max; s++) {
    total += counts[s]!;
    if (Math.abs(s - mean) >= far) asFar += counts[s]!;
  }
  return Math.min(1, asFar / total);
}

/** Two-sided p of U by the normal approximation: tie-corrected variance, continuity-corrected. */
function normalP(u: number, n: number, m: number, ties: number): number {
  const N = n + m;
  const variance = ((n * m) / 12) * (N + 1 - ties / (N * (N - 1)));
  if (variance <= 0) return 1;
  const z = Math.max(0, Math.abs(u - (n * m) / 2) - 0.5) / Math.sqrt(variance);
  return twoSidedNormalP(z);
}
