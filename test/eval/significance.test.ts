/**
 * The tests of `baton stats`, against p-values worked out by hand: small samples get exact
 * p-values (a normal approximation calls 3 of 3 against 0 of 3 significant, p = 0.014; it is not),
 * and a report says when there are too few chains for any difference to show.
 */
import { describe, expect, it } from 'vitest';
import { testLine } from '../../src/eval/stats/format';
import { mannWhitneyU } from '../../src/eval/stats/rankTest';
import { ALPHA, fisherExact, MIN_SAMPLE } from '../../src/eval/stats/significance';

describe("Fisher's exact test", () => {
  it('3 of 3 against 0 of 3 is p = 0.10, not significant: of the 20 ways to pick which 3 of the 6 succeeded, only this one and its mirror are as lopsided', () => {
    const t = fisherExact(3, 3, 0, 3)!;
    expect(t.p).toBeCloseTo(2 / 20, 12);
    expect(t).toMatchObject({ test: "Fisher's exact", significant: false, exact: true, sizes: [3, 3], statistic: 1 });
    expect(t.minP).toBeCloseTo(0.1, 12);
    expect(testLine(t)).toBe(
      "Fisher's exact difference +100.0 points, p=0.1000 — too few to tell: 3 against 3 can give no p below 0.1000",
    );
  });

  it('4 of 4 against 0 of 4 is p = 2/70 = 0.0286, significant: the fewest chains each for which it can be', () => {
    const t = fisherExact(4, 4, 0, 4)!;
    expect(t.p).toBeCloseTo(2 / 70, 12);
    expect(t.significant).toBe(true);
    expect(MIN_SAMPLE).toBe(4);
    expect(t.minP).toBeLessThan(ALPHA);
  });

  it('3 of 4 against 1 of 4: the tables with 0..4 successes on the first side weigh 1, 16, 36, 16, 1 (of 70); p = 34/70', () => {
    expect(fisherExact(3, 4, 1, 4)!.p).toBeCloseTo(34 / 70, 12);
    expect(fisherExact(1, 4, 3, 4)!.p).toBeCloseTo(34 / 70, 12);
  });

  it('2 of 2 against 0 of 8: only the table seen has weight 1/45 (the others 16/45 and 28/45), so p = 1/45 with unequal sizes', () => {
    const t = fisherExact(2, 2, 0, 8)!;
    expect(t.p).toBeCloseTo(1 / 45, 12);
    expect(t.minP).toBeCloseTo(1 / 45, 12);
    expect(t.significant).toBe(true);
  });

  it('100 of 100 against 90 of 100: p = 2·C(100,10)/C(200,10), the 10 failures all on one side or all on the other', () => {
    let allOnOneSide = 1;
    for (let i = 0; i < 10; i++) allOnOneSide *= (100 - i) / (200 - i);
    const t = fisherExact(100, 100, 90, 100)!;
    expect(t.p / (2 * allOnOneSide)).toBeCloseTo(1, 9);
    expect(t.significant).toBe(true);
  });

  it('equal rates give p = 1; no trials on a side give no test', () => {
    expect(fisherExact(5, 10, 5, 10)!.p).toBeCloseTo(1, 12);
    expect(fisherExact(0, 0, 3, 3)).toBeUndefined();
  });
});

describe('the Mann-Whitney U test', () => {
  it('latency 1, 2, 3 against 4, 5, 6 is p = 2/20 = 0.10 exactly: 2 of the 20 splits are as far apart', () => {
    const t = mannWhitneyU([1, 2, 3], [4, 5, 6])!;
    expect(t).toMatchObject({ test: 'Mann-Whitney U', statistic: 0, exact: true, significant: false, sizes: [3, 3] });
    expect(t.p).toBeCloseTo(0.1, 12);
    expect(t.minP).toBeCloseTo(0.1, 12);
    expect(mannWhitneyU([4, 5, 6], [1, 2, 3])!.statistic).toBe(9);
    expect(testLine(t)).toBe(
      'Mann-Whitney U U=0.0 (exact), p=0.1000 — too few to tell: 3 against 3 can give no p below 0.1000',
    );
  });

  it('four against four apart is p = 2/70, significant', () => {
    const t = mannWhitneyU([10, 11, 12, 13], [20, 21, 22, 23])!;
    expect(t.p).toBeCloseTo(2 / 70, 12);
    expect(t.significant).toBe(true);
  });

  it('with ties: 1, 2, 2 against 2, 3, 4 ranks 1, 3, 3 | 3, 5, 6; 6 of the 20 picks sum as far from 10.5 as 7 does (3 sum to 7, 3 to 14): p = 0.3', () => {
    const t = mannWhitneyU([1, 2, 2], [2, 3, 4])!;
    expect(t.p).toBeCloseTo(6 / 20, 12);
    expect(t.statistic).toBe(1);
  });

  it('equal samples give p = 1; an empty side gives no test', () => {
    expect(mannWhitneyU([5, 5, 5], [5, 5, 5])!.p).toBeCloseTo(1, 12);
    expect(mannWhitneyU([], [1])).toBeUndefined();
  });

  it('past 60 values in all, the normal approximation: 31 apart from 30 is far below 0.05, two interleaved samples are not', () => {
    const low = Array.from({ length: 31 }, (_, i) => i);
    const high = Array.from({ length: 30 }, (_, i) => 100 + i);
    const apart = mannWhitneyU(low, high)!;
    expect(apart.exact).toBe(false);
    // U = 0, mean 465, variance 31·30·62/12 = 4805: z = 464.5/√4805 = 6.70, p ≈ 2.1e-11.
    expect(apart.p).toBeLessThan(1e-9);
    expect(apart.p).toBeGreaterThan(1e-12);
    const interleaved = mannWhitneyU(
      low.filter((x) => x % 2 === 0).concat(high.filter((x) => x % 2 === 0)),
      low.filter((x) => x % 2 === 1).concat(high.filter((x) => x % 2 === 1)),
    )!;
    expect(interleaved.exact).toBe(false);
    expect(interleaved.significant).toBe(false);
  });
});

/**
 * Published values: the examples of R's own help pages (?fisher.test, ?wilcox.test, R 4.x) and the
 * textbook table of Wikipedia's "Fisher's exact test" article, each as R prints it (four
 * significant digits); SciPy 1.17's fisher_exact and mannwhitneyu(method='exact') give the same.
 */
describe('against published values (R, SciPy)', () => {
  it("R's TeaTasting (?fisher.test): 3 of 4 cups guessed against 1 of 4, p-value = 0.4857", () => {
    expect(fisherExact(3, 4, 1, 4)!.p).toBeCloseTo(0.4857, 4);
  });

  it("R's Convictions (?fisher.test): twins' convictions 2 of 17 dizygotic against 10 of 13 monozygotic, p-value = 0.0005367", () => {
    const t = fisherExact(2, 17, 10, 13)!;
    expect(t.p).toBeCloseTo(0.0005367, 7);
    expect(t.significant).toBe(true);
    expect(testLine(t)).toBe("Fisher's exact difference -65.2 points, p=0.0005 — significant");
  });

  it("the dieting table (Wikipedia, Fisher's exact test): 1 of 10 men against 11 of 14 women, p = 0.002759", () => {
    expect(fisherExact(1, 10, 11, 14)!.p).toBeCloseTo(0.002759, 6);
  });

  it('7 of 10 against 2 of 10: fisher.test(matrix(c(7, 3, 2, 8), 2)) gives p-value = 0.06978, not significant', () => {
    const t = fisherExact(7, 10, 2, 10)!;
    expect(t.p).toBeCloseTo(0.06978, 5);
    expect(t.significant).toBe(false);
    // Not "too few to tell": 10 against 10 could show a difference, this one does not.
    expect(testLine(t)).toBe("Fisher's exact difference +50.0 points, p=0.0698");
  });

  it('Hollander & Wolfe\'s permeability data (?wilcox.test): W = 35, p-value = 0.2544 two-sided (0.1272 with alternative = "greater")', () => {
    const x = [0.8, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46];
    const y = [1.15, 0.88, 0.9, 0.74, 1.21];
    const t = mannWhitneyU(x, y)!;
    expect(t.statistic).toBe(35);
    expect(t.exact).toBe(true);
    expect(t.p).toBeCloseTo(0.2544, 4);
    expect(t.p / 2).toBeCloseTo(0.1272, 4);
  });

  // R's wilcox.test leaves the exact test with ties, for the normal approximation (p = 0.0411 here, as SciPy's asymptotic method); the exact count is enumerated.
  it('ties, counted exactly: 12 15 15 18 20 20 20 against 15 20 22 25 25 30 is U = 6.5; 69 of the C(13, 7) = 1716 splits have a rank sum as far from its mean, p = 0.04021', () => {
    const t = mannWhitneyU([12, 15, 15, 18, 20, 20, 20], [15, 20, 22, 25, 25, 30])!;
    expect(t.statistic).toBe(6.5);
    expect(t.p).toBeCloseTo(69 / 1716, 12);
    expect(t.significant).toBe(true);
  });

  it('p-values too small for four places are shown as below 0.0001, never as p=0', () => {
    const apart = mannWhitneyU(
      Array.from({ length: 10 }, (_, i) => i),
      Array.from({ length: 10 }, (_, i) => 100 + i),
    )!;
    // 2 of the C(20, 10) = 184756 splits.
    expect(apart.p).toBeCloseTo(2 / 184756, 15);
    expect(testLine(apart)).toBe('Mann-Whitney U U=0.0 (exact), p<0.0001 — significant');
  });
});
