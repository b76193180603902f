/**
 * The inbox's filters: read from the page's query string (a filtered inbox is a link), written back
 * as the query of `GET /v1/inbox`, and the controls of the form that sets them.
 */
import { h } from './dom';

/** The inbox's filters, as the query string holds them (a filtered inbox is a link). */
export interface Filters {
  for: string;
  team: string;
  agent: string;
  tool: string;
  minAge: string;
  overdue: boolean;
  q: string;
  limit: string;
}

/** The choices of how long an approval has waited, by their query value. */
export const AGES: [string, string][] = [
  ['', 'Any time'],
  ['5 minutes', '5 minutes or more'],
  ['1 hour', 'An hour or more'],
  ['1 day', 'A day or more'],
];
/** The page sizes offered. */
export const SIZES = ['5', '10', '25', '50', '100'];
/** The filters typed as text. */
export const TEXTS = ['team', 'agent', 'tool', 'q'] as const;

/** The filters the page's query string holds; for me, 25 a page, unless it says otherwise. */
export function readFilters(): Filters {
  const p = new URLSearchParams(location.search);
  const limit = p.get('limit') ?? '';
  return {
    for: p.get('for') === 'all' ? 'all' : 'me',
    team: p.get('team') ?? '',
    agent: p.get('agent') ?? '',
    tool: p.get('tool') ?? '',
    minAge: p.get('minAge') ?? '',
    overdue: p.get('overdue') === 'true',
    q: p.get('q') ?? '',
    limit: /^\d+$/.test(limit) ? limit : '25',
  };
}

/** The query of `GET /v1/inbox` (and of the page's address) for `f`. */
export function queryOf(f: Filters): URLSearchParams {
  const p = new URLSearchParams();
  if (f.for === 'all') p.set('for', 'all');
  for (const k of TEXTS) if (f[k].trim()) p.set(k, f[k].trim());
  if (f.minAge) p.set('minAge', f.minAge);
  if (f.overdue) p.set('overdue', 'true');
  p.set('limit', f.limit);
  return p;
}

/** A labelled control of the filter form. */
export function field(id: string, label: string, control: HTMLElement): HTMLElement {
  return h('div', { class: 'field' }, [h('label', { for: id, text: label }), control]);
}

/** A select of `options` (value, text), with `value` chosen. */
export function select(id: string, options: [string, string][], value: string): HTMLSelectElement {
  const el = h(
    'select',
    { id },
    options.map(([v, t]) => h('option', { value: v, text: t })),
  );
  el.value = value;
  return el;
}
