/**
 * An eval's verdicts and sum: how each case went against its record, the agreements, the
 * regressions, and whether the threshold holds. Pure; workflow-safe (no I/O).
 */
import type {
  CaseVerdict,
  EvalCaseReport,
  EvalSummary,
  ExpectationResult,
  Ratio,
  Spend,
  ThresholdMetric,
  ThresholdRule,
} from './types';

/**
 * A case's verdict: `regression` when it fails now and its record passed (or it has no record: a
 * dataset line says it should pass), `improvement` when it passes now and its record failed,
 * else `pass` or `fail`.
 */
export function verdictOf(passed: boolean, recordedPassed: boolean | undefined): CaseVerdict {
  if (passed) return recordedPassed === false ? 'improvement' : 'pass';
  return recordedPassed === false ? 'fail' : 'regression';
}

/** Whether every expectation held. */
export function allHold(results: readonly ExpectationResult[]): boolean {
  return results.every((r) => r.ok);
}

const ORDER: Record<CaseVerdict, number> = { regression: 0, fail: 1, improvement: 2, pass: 3 };

/** Regressions first, then failures, improvements and passes, each group in case order. */
export function orderCases(cases: readonly EvalCaseReport[]): EvalCaseReport[] {
  return [...cases].sort((a, b) => ORDER[a.verdict] - ORDER[b.verdict] || a.index - b.index);
}

function ratio(count: number, total: number): Ratio {
  return { count, total, ratio: total === 0 ? 1 : count / total };
}

function addSpend(a: Spend, b: Spend): Spend {
  const sum: Spend = {
    modelCalls: a.modelCalls + b.modelCalls,
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
  };
  return a.cost !== undefined && b.cost !== undefined ? { ...sum, cost: a.cost + b.cost } : sum;
}

/** The sum of an eval's case reports, and which threshold rules it breaks. */
export function summarizeEval(
  evalId: string,
  team: EvalSummary['team'],
  cases: readonly EvalCaseReport[],
  rules: readonly ThresholdRule[],
  durationMs: number,
): EvalSummary {
  const ordered = [...cases].sort((a, b) => a.index - b.index);
  const zero: Spend = { modelCalls: 0, inputTokens: 0, outputTokens: 0, cost: 0 };
  const spent = ordered.reduce((s, c) => addSpend(s, c.candidate.usage), zero);
  const recorded = ordered.filter((c) => c.recorded).reduce((s, c) => addSpend(s, c.recorded!.usage), zero);
  const summary: EvalSummary = {
    evalId,
    team,
    cases: ordered.length,
    routeAgreement: ratio(ordered.filter((c) => c.routeAgrees).length, ordered.length),
    outcomeAgreement: ratio(ordered.filter((c) => c.outcomeAgrees).length, ordered.length),
    passed: ratio(ordered.filter((c) => c.passed).length, ordered.length),
    regressions: ordered.filter((c) => c.verdict === 'regression').map((c) => c.id),
    improvements: ordered.filter((c) => c.verdict === 'improvement').map((c) => c.id),
    modelCalls: spent.modelCalls,
    reused: ordered.reduce((n, c) => n + c.candidate.reused, 0),
    spent: withoutZeroCost(spent, ordered.length),
    recordedUsage: withoutZeroCost(recorded, ordered.filter((c) => c.recorded).length),
    durationMs,
    threshold: { rules: [...rules], breached: [] },
  };
  summary.threshold.breached = rules.flatMap((r) => breach(r, summary));
  return summary;
}

/** A cost of 0 over no calls says nothing: it is left out. */
function withoutZeroCost(s: Spend, cases: number): Spend {
  if (s.cost !== undefined && (cases === 0 || s.modelCalls === 0)) {
    const { cost: _none, ...rest } = s;
    return rest;
  }
  return s;
}

/** `summary` judged by `rules` (an eval run again with another threshold is judged anew, not run again). */
export function withThreshold(summary: EvalSummary, rules: readonly ThresholdRule[]): EvalSummary {
  return { ...summary, threshold: { rules: [...rules], breached: rules.flatMap((r) => breach(r, summary)) } };
}

/** The measure a threshold rule reads. */
export function measure(metric: ThresholdMetric, s: EvalSummary): number {
  switch (metric) {
    case 'regressions':
      return s.regressions.length;
    case 'route':
      return s.routeAgreement.ratio;
    case 'outcome':
      return s.outcomeAgreement.ratio;
    case 'pass':
      return s.passed.ratio;
  }
}

function breach(rule: ThresholdRule, s: EvalSummary): string[] {
  const value = measure(rule.metric, s);
  const holds = rule.op === '<=' ? value <= rule.value : value >= rule.value;
  if (holds) return [];
  const shown = rule.metric === 'regressions' ? String(value) : value.toFixed(3);
  return [`${rule.metric} ${shown} (must be ${rule.op} ${rule.value})`];
}

/** The default threshold: no regressions. */
export const DEFAULT_THRESHOLD: ThresholdRule[] = [{ metric: 'regressions', op: '<=', value: 0 }];

const METRICS: readonly ThresholdMetric[] = ['regressions', 'route', 'outcome', 'pass'];

/**
 * Read a threshold: rules separated by commas, each `<metric><op><number>` with metric
 * `regressions`, `route`, `outcome` or `pass` and op `<=` or `>=` (`regressions<=0,route>=0.9`).
 * Throws an `Error` naming what is wrong and what would be valid.
 */
export function parseThreshold(text: string): ThresholdRule[] {
  const rules: ThresholdRule[] = [];
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^([a-z]+)\s*(<=|>=)\s*([0-9]+(?:\.[0-9]+)?)$/.exec(part);
    if (!m || !METRICS.includes(m[1] as ThresholdMetric)) {
      throw new Error(
        `threshold rule "${part}" must be <metric><= or >=<number>, with metric one of ${METRICS.join(', ')} (e.g. "regressions<=0,route>=0.9")`,
      );
    }
    const value = Number(m[3]);
    const metric = m[1] as ThresholdMetric;
    if (metric !== 'regressions' && value > 1)
      throw new Error(`threshold rule "${part}": ${metric} is a ratio from 0 to 1`);
    rules.push({ metric, op: m[2] as '<=' | '>=', value });
  }
  if (rules.length === 0) throw new Error('a threshold needs at least one rule, e.g. "regressions<=0"');
  return rules;
}
