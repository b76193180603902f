/** Building the page: elements, links, numbers and times as people read them, and the toast. */
import { BASE } from './session';

/** An event handler given as an `on…` attribute. */
type Handler = (e: Event) => unknown;
/** Attributes of {@link h}: `text` sets the text, `on…` adds a listener, `true` an empty attribute; false, null and undefined are left out. */
export type Attrs = Record<string, string | boolean | null | undefined | Handler>;
/** What an element holds. */
export type Child = Node | string | null | undefined;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  children: Child[] = [],
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'text') el.textContent = String(v);
    else if (k.slice(0, 2) === 'on') el.addEventListener(k.slice(2), v as Handler);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) if (c !== null && c !== undefined) el.append(c);
  return el;
}

export function enc(s: string): string {
  return encodeURIComponent(s);
}

export function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}

/** A chain's cost, as `usage.cost` gives it. */
export interface Cost {
  micros: number;
  currency: string;
  unpricedCalls: number;
}

export function costText(c: Cost | undefined): string | null {
  if (!c) return null;
  const amount = `${(c.micros / 1e6).toFixed(6)} ${c.currency}`;
  return c.unpricedCalls > 0
    ? `cost unknown (${count(c.unpricedCalls, 'call')} unpriced; at least ${amount})`
    : `cost: ${amount}`;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export function ago(iso: string): string {
  const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

export function until(iso: string): string {
  const s = Math.round((Date.parse(iso) - Date.now()) / 1000);
  if (s <= 0) return 'expiring now';
  return `expires in ${s < 120 ? `${s} s` : s < 7200 ? `${Math.round(s / 60)} min` : `${Math.round(s / 3600)} h`}`;
}

export function runLink(id: string, text?: string): HTMLAnchorElement {
  return h('a', { href: `${BASE}runs/${enc(id)}`, text: text || id });
}

let toastTimer: ReturnType<typeof setTimeout> | undefined;

/** A message in the toast for a few seconds, with a link to follow the chain it is about. */
export function say(message: string, runId?: string): void {
  const toast = document.getElementById('toast')!;
  toast.replaceChildren(message);
  if (runId) toast.append(' · ', h('a', { href: `${BASE}runs/${enc(runId)}`, text: 'follow the chain' }));
  toast.className = 'toast show';
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    toast.className = 'toast';
  }, 6000);
}

/** The message of something thrown. */
export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
