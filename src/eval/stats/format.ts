/** Statistics for people: tables of an experiment's variants and of agents and edges. */
import type { AgentEdgeStats } from './agents';
import type { ExperimentStats } from './experiment';
import { ALPHA, MIN_SAMPLE, type TestResult } from './significance';

/** Rows of cells as aligned columns. */
export function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

const pct = (r: number | undefined) => (r === undefined ? '—' : `${(r * 100).toFixed(1)}%`);
const ms = (v: number | undefined) =>
  v === undefined ? '—' : v >= 1000 ? `${(v / 1000).toFixed(2)} s` : `${Math.round(v)} ms`;
const num = (v: number | undefined, digits = 1) => (v === undefined ? '—' : v.toFixed(digits));
const failures = (f: Record<string, number>) =>
  Object.entries(f)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ') || '—';

/** An experiment's variants, then each one beside the control with its tests. */
export function formatExperimentStats(s: ExperimentStats): string[] {
  const { definition: d, status, winner } = s.experiment;
  const lines = [
    `experiment ${d.id} (${status === 'stopped' ? `stopped: every new chain goes to ${winner}` : 'running'}) · split by ${d.key ?? 'id'} · ${d.variants.map((v) => `${v.name} ${v.weight ?? 1}`).join(' / ')}`,
    '',
  ];
  lines.push(
    ...table(
      [
        'variant',
        'chains',
        'success',
        'failures',
        'handoffs/chain',
        'approvals rejected',
        'guardrail trips',
        'tokens/chain',
        'cost',
        'latency p50',
        'p95',
      ],
      s.variants.map((v) => [
        v.variant,
        `${v.chains}${v.running > 0 ? ` (${v.running} running)` : ''}`,
        `${pct(v.successRate)} (${v.completed}/${v.completed + v.failed})`,
        failures(v.failures),
        num(v.handoffs.mean, 2),
        `${v.approvals.rejected}/${v.approvals.asked}`,
        String(v.guardrailTrips.total),
        num(v.tokens.mean, 0),
        v.cost === undefined ? '—' : v.cost.toFixed(4),
        ms(v.latencyMs.p50),
        ms(v.latencyMs.p95),
      ]),
    ),
  );
  for (const c of s.comparisons) {
    lines.push(
      '',
      `${c.variant} against ${c.against} (significant when p < ${ALPHA}; with fewer than ${MIN_SAMPLE} ended chains in each variant no test can show a difference):`,
    );
    const shown = (name: string, t: TestResult | undefined) => (t ? [`  ${name}: ${testLine(t)}`] : []);
    lines.push(
      ...shown('success rate', c.successRate),
      ...shown('approval rejections', c.approvalRejections),
      ...shown('chains with a guardrail trip', c.guardrailTrips),
      ...shown('latency', c.latency),
      ...shown('tokens', c.tokens),
      ...shown('handoffs', c.handoffs),
    );
  }
  return lines;
}

/** A test as one line: its statistic, its p, and whether it is significant, or could not be with so few. */
export function testLine(t: TestResult): string {
  const statistic =
    t.test === 'Mann-Whitney U'
      ? `U=${t.statistic.toFixed(1)} (${t.exact ? 'exact' : 'normal approximation'})`
      : `difference ${t.statistic >= 0 ? '+' : ''}${(t.statistic * 100).toFixed(1)} points`;
  const verdict = t.significant
    ? ' — significant'
    : t.minP >= ALPHA
      ? ` — too few to tell: ${t.sizes[0]} against ${t.sizes[1]} can give no p below ${t.minP.toFixed(4)}`
      : '';
  return `${t.test} ${statistic}, ${pText(t.p)}${verdict}`;
}

/** A p-value to four places; one that would round to 0 shown as below 0.0001, never as p=0. */
function pText(p: number): string {
  return p < 0.00005 ? 'p<0.0001' : `p=${p.toFixed(4)}`;
}

/** Agents or edges, as asked. */
export function formatAgentEdgeStats(s: AgentEdgeStats, by: 'agent' | 'edge'): string[] {
  const head = `${s.chains} chain${s.chains === 1 ? '' : 's'} (${s.query})`;
  if (by === 'agent') {
    return [
      head,
      '',
      ...table(
        [
          'agent',
          'turns',
          'success',
          'answered',
          'handed off',
          'failed',
          'failures',
          'approvals rejected',
          'latency p50',
          'p95',
        ],
        s.agents.map((a) => [
          a.agent,
          String(a.activations),
          pct(a.successRate),
          String(a.answered),
          String(a.handedOff),
          String(a.failed),
          failures(a.failures),
          `${a.approvals.rejected}/${a.approvals.asked} ${pct(a.approvals.rejectionRate)}`,
          ms(a.latencyMs.p50),
          ms(a.latencyMs.p95),
        ]),
      ),
    ];
  }
  return [
    head,
    '',
    ...table(
      [
        'edge',
        'asked',
        'handed off',
        'rejected',
        'refused',
        'chains completed',
        'failures',
        'approvals rejected',
        'latency p50',
        'p95',
      ],
      s.edges.map((e) => [
        `${e.from} → ${e.to}`,
        String(e.requested),
        String(e.handoffs),
        String(e.rejected),
        String(e.refused),
        `${pct(e.successRate)} (${e.completed}/${e.completed + e.failed})`,
        failures(e.failures),
        `${e.approvals.rejected}/${e.approvals.asked} ${pct(e.approvals.rejectionRate)}`,
        ms(e.latencyMs.p50),
        ms(e.latencyMs.p95),
      ]),
    ),
  ];
}
