/**
 * The economics a team snapshot records: prices, spend limits shared across runs and circuit
 * breakers shared across runs, with the checks of what a user gives and the ids of the
 * long-running workflows that keep the shared state.
 *
 * Workflow-safe: no I/O.
 */
import { durationMs, isRecord, shown } from '../check';
import { currencyOf, DEFAULT_PRICES, type PriceTable, priceTableProblems, toMicros } from './prices';

/** How long a spend limit's window is; windows start on the hour, at midnight, or on the 1st, in UTC. */
export type SpendWindow = 'hour' | 'day' | 'month';
const WINDOWS: readonly SpendWindow[] = ['hour', 'day', 'month'];

/**
 * A spend limit shared by every chain and conversation of the team with the same key: at most
 * `limit` (in the prices' currency) per `window`.
 * @example { name: 'tenant-daily', keyFrom: 'tenant', limit: 5, window: 'day' }
 */
export interface SpendLimit {
  /** Names the limit in its ledger's workflow id, refusals and metrics: letters, digits, `.`, `_`, `-`. */
  name: string;
  /**
   * The field of the run's context whose value is the key (a tenant or user id): chains with the same
   * value share the limit, and a run without the field is refused when it starts. Without it, one
   * limit for every chain of the team.
   */
  keyFrom?: string;
  /** The most the key may spend in a window, in the prices' currency. */
  limit: number;
  window: SpendWindow;
  /**
   * A model call that could pass the limit: `refuse` fails the chain with `SpendLimitExceededError`;
   * `wait` waits for the next window (a durable timer), then goes on. @default "refuse"
   */
  onExceeded?: 'refuse' | 'wait';
}

/** A spend limit as the snapshot records it: the limit in micros. */
export interface SpendLimitSpec {
  name: string;
  keyFrom?: string;
  limitMicros: number;
  window: SpendWindow;
  onExceeded: 'refuse' | 'wait';
}

/**
 * Circuit breakers shared by the chains of a team: a target's failures in any chain count, an open
 * breaker refuses handoffs and delegations to it in every chain, and one trial call goes through
 * after the cooldown.
 * @example { threshold: 3, cooldown: '1 minute' }
 */
export interface SharedBreakers {
  /** Failures of a target, across chains, since its last success, that open its breaker. @default 3 */
  threshold?: number;
  /** How long an open breaker refuses its target before one trial goes through. @default "1 minute" */
  cooldown?: string | number;
  /**
   * Which chains share a breaker: those on the same task queue, those of the same team name, or (with
   * `keyFrom`) those whose context has the same value of that field. @default "task_queue"
   */
  scope?: 'task_queue' | 'team';
  /** A context field (a tenant id) that splits the scope: each value has its own breakers. */
  keyFrom?: string;
}

/** Shared breakers as the snapshot records them. */
export interface SharedBreakersSpec {
  threshold: number;
  cooldownMs: number;
  scope: 'task_queue' | 'team';
  keyFrom?: string;
}

/** What a team snapshot records of its economics. Not part of the team's version: see docs/economics.md. */
export interface EconomicsSpec {
  /** Prices of the models, the currency of every cost and budget in money. */
  prices?: PriceTable;
  spendLimits?: SpendLimitSpec[];
  sharedBreakers?: SharedBreakersSpec;
}

/** The economics a team declares (`new Team(agents, {prices, spendLimits, sharedBreakers})`). */
export interface EconomicsOptions {
  /** Prices by model; the default table ({@link DEFAULT_PRICES}) fills in models it has, in the same currency. */
  prices?: PriceTable;
  spendLimits?: SpendLimit[];
  sharedBreakers?: SharedBreakers | boolean;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Problems with economics options, each naming the field and what would be valid. */
export function economicsProblems(o: EconomicsOptions): string[] {
  const problems: string[] = [];
  if (o.prices !== undefined) problems.push(...priceTableProblems(o.prices));
  if (o.spendLimits !== undefined) {
    if (!Array.isArray(o.spendLimits))
      problems.push(
        `"spendLimits" must be a list of {name, limit, window, keyFrom?, onExceeded?}, got ${shown(o.spendLimits)}`,
      );
    else {
      o.spendLimits.forEach((l, i) => problems.push(...spendLimitProblems(l, `spendLimits[${i}]`)));
      const names = o.spendLimits.map((l) => (l as Partial<SpendLimit>)?.name);
      const twice = names.filter((n, i) => names.indexOf(n) !== i);
      if (twice.length > 0)
        problems.push(`"spendLimits" names "${String(twice[0])}" twice: each limit needs a name of its own`);
    }
  }
  if (o.sharedBreakers !== undefined && typeof o.sharedBreakers !== 'boolean')
    problems.push(...sharedBreakersProblems(o.sharedBreakers));
  return problems;
}

function spendLimitProblems(l: unknown, at: string): string[] {
  if (!isRecord(l)) return [`"${at}" must be {name, limit, window, keyFrom?, onExceeded?}, got ${shown(l)}`];
  const problems: string[] = [];
  if (typeof l.name !== 'string' || !NAME.test(l.name))
    problems.push(
      `"${at}.name" must be 1 to 64 letters, digits or . _ - (starting with a letter or digit), got ${shown(l.name)}`,
    );
  if (typeof l.limit !== 'number' || !Number.isFinite(l.limit) || l.limit <= 0 || l.limit > 1e9)
    problems.push(
      `"${at}.limit" must be an amount above 0 and up to 1e9 in the prices' currency, got ${shown(l.limit)}`,
    );
  if (!WINDOWS.includes(l.window as SpendWindow))
    problems.push(`"${at}.window" must be "hour", "day" or "month", got ${shown(l.window)}`);
  if (l.keyFrom !== undefined && (typeof l.keyFrom !== 'string' || l.keyFrom === ''))
    problems.push(`"${at}.keyFrom" must name a field of the run's context, got ${shown(l.keyFrom)}`);
  if (l.onExceeded !== undefined && l.onExceeded !== 'refuse' && l.onExceeded !== 'wait')
    problems.push(`"${at}.onExceeded" must be "refuse" or "wait", got ${shown(l.onExceeded)}`);
  const extra = Object.keys(l).filter((k) => !['name', 'keyFrom', 'limit', 'window', 'onExceeded'].includes(k));
  if (extra.length > 0)
    problems.push(
      `"${at}" has unknown field(s) ${extra.map((k) => `"${k}"`).join(', ')} (valid: name, keyFrom, limit, window, onExceeded)`,
    );
  return problems;
}

function sharedBreakersProblems(b: unknown): string[] {
  const at = 'sharedBreakers';
  if (!isRecord(b)) return [`"${at}" must be true or {threshold?, cooldown?, scope?, keyFrom?}, got ${shown(b)}`];
  const problems: string[] = [];
  if (
    b.threshold !== undefined &&
    (typeof b.threshold !== 'number' || !Number.isInteger(b.threshold) || b.threshold < 1 || b.threshold > 1000)
  )
    problems.push(`"${at}.threshold" must be an integer from 1 to 1000, got ${shown(b.threshold)}`);
  if (b.cooldown !== undefined && (durationMs(b.cooldown) ?? 0) < 1000)
    problems.push(
      `"${at}.cooldown" must be a duration from 1 second up to a year, such as "1 minute", got ${shown(b.cooldown)}`,
    );
  if (b.scope !== undefined && b.scope !== 'task_queue' && b.scope !== 'team')
    problems.push(`"${at}.scope" must be "task_queue" or "team", got ${shown(b.scope)}`);
  if (b.keyFrom !== undefined && (typeof b.keyFrom !== 'string' || b.keyFrom === ''))
    problems.push(`"${at}.keyFrom" must name a field of the run's context, got ${shown(b.keyFrom)}`);
  const extra = Object.keys(b).filter((k) => !['threshold', 'cooldown', 'scope', 'keyFrom'].includes(k));
  if (extra.length > 0)
    problems.push(
      `"${at}" has unknown field(s) ${extra.map((k) => `"${k}"`).join(', ')} (valid: threshold, cooldown, scope, keyFrom)`,
    );
  return problems;
}

/**
 * The economics a snapshot records for options already checked: `prices` over the default table
 * (the defaults only in the prices' currency), limits and breakers resolved. `undefined` when there
 * is nothing but the defaults to record and `defaults` is false.
 */
export function economicsSpec(o: EconomicsOptions, defaults = true): EconomicsSpec {
  const currency = currencyOf(o.prices);
  const fallback = defaults && currency === 'USD' ? DEFAULT_PRICES : {};
  const prices = { ...fallback, ...o.prices };
  const limits = (o.spendLimits ?? []).map((l): SpendLimitSpec => ({
    name: l.name,
    ...(l.keyFrom ? { keyFrom: l.keyFrom } : {}),
    limitMicros: toMicros(l.limit),
    window: l.window,
    onExceeded: l.onExceeded ?? 'refuse',
  }));
  const b = o.sharedBreakers === true ? {} : o.sharedBreakers || undefined;
  return {
    ...(Object.keys(prices).length > 0 ? { prices } : {}),
    ...(limits.length > 0 ? { spendLimits: limits } : {}),
    ...(b
      ? {
          sharedBreakers: {
            threshold: b.threshold ?? 3,
            cooldownMs: durationMs(b.cooldown ?? '1 minute') ?? 60_000,
            scope: b.scope ?? 'task_queue',
            ...(b.keyFrom ? { keyFrom: b.keyFrom } : {}),
          },
        }
      : {}),
  };
}

/** The window of `window` kind that holds workflow time `ms`, in UTC: its start and end (ISO 8601). */
export function windowOf(ms: number, window: SpendWindow): { start: string; end: string } {
  const d = new Date(ms);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  const [start, end] =
    window === 'hour'
      ? [Date.UTC(y, m, d.getUTCDate(), d.getUTCHours()), Date.UTC(y, m, d.getUTCDate(), d.getUTCHours() + 1)]
      : window === 'day'
        ? [Date.UTC(y, m, d.getUTCDate()), Date.UTC(y, m, d.getUTCDate() + 1)]
        : [Date.UTC(y, m, 1), Date.UTC(y, m + 1, 1)];
  return { start: new Date(start).toISOString(), end: new Date(end).toISOString() };
}

/** What a spend limit's refusal carries. */
export interface SpendRefusal {
  /** The limit's name. */
  limit: string;
  key: string;
  window: SpendWindow;
  /** The window the refusal is in (ISO 8601, UTC). */
  windowStart: string;
  currency: string;
  limitMicros: number;
  /** Spent in the window when the chain asked. */
  spentMicros: number;
  /** Held by other chains' calls in flight when the chain asked. */
  reservedMicros: number;
  /** What the refused call could cost at worst. */
  neededMicros: number;
  /** The agent whose model call was refused. */
  agent: string;
}

/** The longest key a ledger or breaker id carries; longer keys are cut and marked with their hash. */
const MAX_KEY_CHARS = 200;

/** A key as an id carries it: within 200 characters, distinct keys staying distinct. */
export function idPart(key: string): string {
  if (key.length <= MAX_KEY_CHARS) return key;
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193) >>> 0;
  return `${key.slice(0, MAX_KEY_CHARS - 9)}#${hash.toString(16).padStart(8, '0')}`;
}

/** The workflow id of the ledger of limit `name`, `key`, for the window starting at `windowStart`. */
export function ledgerId(name: string, key: string, windowStart: string): string {
  return `baton-spend/${name}/${idPart(key)}/${windowStart}`;
}

/** The workflow id of the shared breaker of `target` in `scope`. */
export function breakerId(scope: string, target: string): string {
  return `baton-breaker/${idPart(scope)}/${target}`;
}

/** The key a context gives a limit or breaker that reads `keyFrom`: its value as text, or `undefined` when the context lacks it. */
export function keyFromContext(
  context: Record<string, unknown> | undefined,
  keyFrom: string | undefined,
): string | undefined {
  if (keyFrom === undefined) return '*';
  const v = context?.[keyFrom];
  if (typeof v === 'string' && v !== '') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return undefined;
}
