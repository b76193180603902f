/**
 * Checks of plain JSON values for the validators of run input, options, signals and state. Each
 * returns the problems it finds, each naming the field and what would be valid; none throws.
 *
 * Workflow-safe: no I/O.
 */
import type { Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';

/**
 * Problems with a value; `key` names it in the messages. `T` is the type whose every value the check
 * accepts, known to the compiler only: a check of type `Check<T>` fits a field of type `T` or of a
 * narrower type, never one of a wider type (a check that would refuse values its field may hold).
 * An untyped check (`Check`) fits any field.
 */
export type Check<T = unknown> = ((value: unknown, key: string) => string[]) & {
  /** Never set: a marker that lets the compiler see which values of `T` the check fits. */
  readonly accepts?: (value: T) => void;
};

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A short rendering of a bad value for a message. Never throws: a value too deep for
 * `JSON.stringify` is named by its kind, and a number JSON cannot hold by what it is (JSON's
 * `1e400` reads as `Infinity`, which `JSON.stringify` would write as `null`).
 */
export function shown(value: unknown): string {
  if (typeof value === 'number' && !Number.isFinite(value))
    return `${String(value)} (a number beyond what JSON numbers hold, such as 1e400)`;
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = Array.isArray(value)
      ? 'an array nested too deep to show'
      : typeof value === 'object' && value !== null
        ? 'an object nested too deep to show'
        : typeof value;
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** A field name as a message quotes it: names from outside can be of any length. */
export function fieldName(name: string): string {
  return JSON.stringify(name.length > 64 ? `${name.slice(0, 61)}...` : name);
}

/** Field names as a message lists them: at most ten, each clipped. */
export function fieldNames(names: readonly string[]): string {
  const listed = names.slice(0, 10).map(fieldName).join(', ');
  return names.length > 10 ? `${listed} and ${names.length - 10} more` : listed;
}

/** The largest count baton accepts anywhere: beyond it a number is a mistake, not a limit. */
export const MAX_COUNT = 1_000_000;

/** An integer from `min` to `max`. */
export function integer(min: number, max = MAX_COUNT): Check<number> {
  return (v, key) =>
    typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max
      ? []
      : [`"${key}" must be an integer >= ${min} and <= ${max}, got ${shown(v)}`];
}

/** A number from `min` to `max`. */
export function number(min: number, max: number): Check<number> {
  return (v, key) =>
    typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max
      ? []
      : [`"${key}" must be a number >= ${min} and <= ${max}, got ${shown(v)}`];
}

/** One of the given strings. */
export function oneOf<const V extends string>(values: readonly V[]): Check<V> {
  return (v, key) =>
    typeof v === 'string' && (values as readonly string[]).includes(v)
      ? []
      : [`"${key}" must be ${values.map((s) => `"${s}"`).join(' or ')}, got ${shown(v)}`];
}

export const string: Check<string> = (v, key) =>
  typeof v === 'string' ? [] : [`"${key}" must be a string, got ${shown(v)}`];

export const nonEmptyString: Check<string> = (v, key) =>
  typeof v === 'string' && v.trim() !== '' ? [] : [`"${key}" must be a non-empty string, got ${shown(v)}`];

export const boolean: Check<boolean> = (v, key) =>
  typeof v === 'boolean' ? [] : [`"${key}" must be true or false, got ${shown(v)}`];

/** The longest duration baton accepts (a year): beyond it a timeout is a mistake. */
const MAX_DURATION_MS = 365 * 24 * 3600 * 1000;

/** Milliseconds of a duration such as `"30 seconds"` or `1500`; `undefined` when it is not one. */
export function durationMs(value: unknown): number | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  try {
    const ms = msToNumber(value as Duration);
    return Number.isFinite(ms) && ms > 0 && ms <= MAX_DURATION_MS ? ms : undefined;
  } catch {
    return undefined;
  }
}

export const duration: Check<string | number> = (v, key) =>
  durationMs(v) !== undefined
    ? []
    : [
        `"${key}" must be a positive duration up to a year, such as "30 seconds" or a number of milliseconds, got ${shown(v)}`,
      ];

/** A duration of at least `minMs`: a timeout shorter than that is a mistake, not a limit. */
export function durationAtLeast(minMs: number, example: string): Check<string | number> {
  return (v, key) => {
    const ms = durationMs(v);
    return ms !== undefined && ms >= minMs
      ? []
      : [
          `"${key}" must be a duration from ${example} up to a year, such as "30 seconds" or a number of milliseconds, got ${shown(v)}`,
        ];
  };
}

/** An array whose items pass `item`. */
export function arrayOf<T>(item: Check<T>, what: string): Check<T[]> {
  return (v, key) =>
    Array.isArray(v)
      ? v.flatMap((x, i) => item(x, `${key}[${i}]`))
      : [`"${key}" must be an array of ${what}, got ${shown(v)}`];
}

/** Any value at all: a field whose content baton carries without reading it. */
export const anything: Check = () => [];

/** A JSON object, whatever its fields. */
export const object: Check<object> = (v, key) => (isRecord(v) ? [] : [`"${key}" must be an object, got ${shown(v)}`]);

/** A whole number from 0 up: a counter. */
export const count: Check<number> = integer(0, Number.MAX_SAFE_INTEGER);

/** An ISO 8601 time. */
export const isoTime: Check<string> = (v, key) =>
  typeof v === 'string' && !Number.isNaN(Date.parse(v)) ? [] : [`"${key}" must be an ISO 8601 time, got ${shown(v)}`];

/** A list of non-empty strings. */
export const names: Check<string[]> = (v, key) =>
  Array.isArray(v) && v.every((x) => typeof x === 'string' && x !== '')
    ? []
    : [`"${key}" must be a list of non-empty strings, got ${shown(v)}`];

/**
 * An object with the given fields (optional ones marked in `optional`); unknown fields are
 * problems too, so a typo never passes silently.
 */
export function shape(fields: Record<string, Check<never>>, optional: readonly string[] = []): Check {
  return (v, key) => {
    if (!isRecord(v)) return [`"${key}" must be an object {${Object.keys(fields).join(', ')}}, got ${shown(v)}`];
    const problems: string[] = [];
    for (const [name, check] of Object.entries(fields)) {
      if (v[name] === undefined) {
        if (!optional.includes(name)) problems.push(`"${key}.${name}" is missing`);
      } else problems.push(...check(v[name], `${key}.${name}`));
    }
    // Own fields only: `"__proto__"`, `"constructor"` and the like are unknown fields, not inherited ones.
    const extra = Object.keys(v).filter((k) => !Object.hasOwn(fields, k));
    if (extra.length > 0)
      problems.push(`"${key}" has unknown field(s) ${fieldNames(extra)} (valid: ${Object.keys(fields).join(', ')})`);
    return problems;
  };
}

/** The keys of `T` a value may leave out. */
export type OptionalKeys<T> = { [K in keyof T]-?: T extends Record<K, T[K]> ? never : K }[keyof T];

/** A check for every field of `T`, none missing, none extra. */
export type FieldChecks<T> = { [K in keyof T]-?: Check<Exclude<T[K], undefined>> };

type Unlisted<T, O extends readonly unknown[]> = Exclude<OptionalKeys<T>, O[number]>;

/** The optional keys `O`, when they are all of `T`'s; else a type no list fits, naming those left out. */
type AllOptional<T, O extends readonly unknown[]> = [Unlisted<T, O>] extends [never]
  ? O
  : { 'optional fields not listed': Unlisted<T, O> };

/**
 * {@link shape} held to the type `T` it checks: `fields` must have a check for each field of `T` and
 * for nothing else, each check fitting its field's type, and `optional` must list exactly the fields
 * `T` makes optional (a type without optional fields takes no list). A field added to `T` without a
 * check, or a check without a field, is a compile error, so a value baton wrote always passes the
 * check baton reads it back with.
 * @example const link = shapeOf<ParentLink>()({ workflowId: nonEmptyString, depth: count, token: string }, ['token']);
 */
export function shapeOf<T extends object>() {
  return <const O extends readonly OptionalKeys<T>[] = []>(
    fields: FieldChecks<T>,
    ...optional: [Unlisted<T, []>] extends [never] ? [] : [AllOptional<T, O>]
  ): Check<T> => shape(fields as Record<string, Check<never>>, (optional[0] ?? []) as readonly string[]);
}

/** An object whose values all pass `item`. */
export function recordOf<T>(item: Check<T>): Check<Record<string, T>> {
  return (v, key) =>
    isRecord(v)
      ? Object.entries(v).flatMap(([k, x]) => item(x, `${key}.${k.length > 64 ? `${k.slice(0, 61)}...` : k}`))
      : [`"${key}" must be an object, got ${shown(v)}`];
}

/** Either check passes. */
export function either<A, B>(a: Check<A>, b: Check<B>): Check<A | B> {
  return (v, key) => {
    const first = a(v, key);
    return first.length === 0 || b(v, key).length === 0 ? [] : first;
  };
}

/** `null` or what `check` accepts. */
export function nullable<T>(check: Check<T>): Check<T | null> {
  return (v, key) => (v === null ? [] : check(v, key));
}
