/**
 * The drill's tables: a summary row per drill, and one row per fault.
 */

/** A cell: numbers are right-aligned, undefined prints as a dash. */
export type Cell = string | number | undefined;

/** Format a duration in ms as seconds with one decimal. */
export function seconds(ms: number | undefined): string | undefined {
  return ms === undefined ? undefined : `${(ms / 1000).toFixed(1)} s`;
}

/** A plain-text table with a header line, columns padded to fit. */
export function formatTable(rows: Record<string, Cell>[]): string {
  if (rows.length === 0) return '(no rows)';
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const text = (v: Cell) => (v === undefined ? '—' : String(v));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => text(r[c]).length)));
  const line = (cells: string[], numeric: boolean[]) =>
    cells
      .map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const header = line(
    columns,
    columns.map(() => false),
  );
  const rule = widths.map((w) => '─'.repeat(w)).join('  ');
  const body = rows.map((r) =>
    line(
      columns.map((c) => text(r[c])),
      columns.map((c) => typeof r[c] === 'number'),
    ),
  );
  return [header, rule, ...body].join('\n');
}
