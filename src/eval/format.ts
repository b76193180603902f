/**
 * An eval report for people: a line per case as it is done, and the report as a table with its
 * summary (regressions first).
 */
import type { ChainOutcome, EvalCaseReport, EvalReport, Spend } from '../common/eval/types';

const MARK: Record<EvalCaseReport['verdict'], string> = { pass: '✓', improvement: '✓', regression: '✗', fail: '✗' };

/** One case as it is done: `✓ 2/4 <id>  triage → refunds (route as recorded) · 1 model call, 4 reused`. */
export function formatCaseLine(r: EvalCaseReport, progress: { done: number; total: number }): string {
  const route = r.candidate.route.join(' → ') || '(none)';
  const routeNote = !r.recorded
    ? ''
    : r.routeAgrees
      ? ' (route as recorded)'
      : ` (recorded ${r.recorded.route.join(' → ')})`;
  const outcome = r.candidate.outcome.status === 'completed' ? '' : ` · ${outcomeWords(r.candidate.outcome)}`;
  const failing = r.expectations.filter((e) => !e.ok).map((e) => `${e.name}: ${e.detail}`);
  const verdict = r.verdict === 'pass' ? '' : ` ${r.verdict}`;
  return `${MARK[r.verdict]}${verdict} ${progress.done}/${progress.total} ${r.id}  ${route}${routeNote}${outcome} · ${calls(r)}${failing.length > 0 ? ` · ${failing.join('; ')}` : ''}`;
}

/** The report as a table: the summary, then a row per case (regressions first), then the threshold. */
export function formatEvalReport(report: EvalReport): string[] {
  const s = report.summary;
  const pct = (r: { count: number; total: number; ratio: number }) =>
    `${r.count}/${r.total} (${Math.round(r.ratio * 100)}%)`;
  const lines = [
    `eval ${s.evalId} · team ${s.team.id} · ${s.cases} case${s.cases === 1 ? '' : 's'} · ${(s.durationMs / 1000).toFixed(1)} s`,
    `  route agreement ${pct(s.routeAgreement)} · outcome agreement ${pct(s.outcomeAgreement)} · passed ${pct(s.passed)}`,
    `  model calls ${s.modelCalls} · answers reused ${s.reused} · spent ${spend(s.spent)} · recorded chains used ${spend(s.recordedUsage)}`,
    `  regressions ${s.regressions.length}${s.regressions.length > 0 ? `: ${s.regressions.join(', ')}` : ''}${s.improvements.length > 0 ? ` · improvements ${s.improvements.length}: ${s.improvements.join(', ')}` : ''}`,
    '',
  ];
  const header = [
    'verdict',
    'case',
    'recorded route',
    'candidate route',
    'outcome',
    'calls',
    'reused',
    'first difference',
  ];
  const rows = report.cases.map((r) => [
    r.verdict,
    clip(r.id, 30),
    r.recorded ? r.recorded.route.join(' → ') : '—',
    r.candidate.route.join(' → ') || '(none)',
    r.recorded && !r.outcomeAgrees
      ? `${outcomeWords(r.recorded.outcome)} → ${outcomeWords(r.candidate.outcome)}`
      : outcomeWords(r.candidate.outcome),
    String(r.candidate.usage.modelCalls),
    String(r.candidate.reused),
    r.firstDifference
      ? `step ${r.firstDifference.step} ${r.firstDifference.agent}: ${r.firstDifference.why.join(', ')}`
      : r.error
        ? r.error
        : 'none: every answer reused',
  ]);
  const widths = header.map((h, i) =>
    Math.max(h.length, ...rows.map((row) => (i === header.length - 1 ? 0 : row[i]!.length))),
  );
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  lines.push(line(header), ...rows.map(line));
  for (const r of report.cases) {
    const failing = r.expectations.filter((e) => !e.ok);
    if (failing.length > 0 && r.verdict !== 'pass')
      lines.push(`  ${clip(r.id, 30)}: ${failing.map((e) => `${e.name}: ${e.detail}`).join('; ')}`);
  }
  const { rules, breached } = s.threshold;
  const shown = rules.map((r) => `${r.metric}${r.op}${r.value}`).join(',');
  lines.push(
    '',
    breached.length > 0 ? `threshold ${shown}: breached: ${breached.join('; ')}` : `threshold ${shown}: holds`,
  );
  return lines;
}

function calls(r: EvalCaseReport): string {
  const n = r.candidate.usage.modelCalls;
  return `${n} model call${n === 1 ? '' : 's'}, ${r.candidate.reused} reused`;
}

function outcomeWords(o: ChainOutcome): string {
  return o.error ? `${o.status} (${o.error})` : o.status;
}

function spend(s: Spend): string {
  return `${s.inputTokens} in / ${s.outputTokens} out tokens${s.cost !== undefined ? `, cost ${s.cost.toFixed(4)}` : ''}`;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
