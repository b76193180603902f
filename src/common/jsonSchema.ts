/**
 * A JSON Schema check small enough for workflow code: the keywords zod's `toJSONSchema` and
 * hand-written tool schemas use (type, properties, required, additionalProperties, items, enum,
 * const, anyOf/oneOf/allOf, minimum/maximum and their exclusive forms, minLength/maxLength,
 * pattern, minItems/maxItems, local `$ref`s). Unknown keywords are ignored, as JSON Schema says.
 *
 * Workflow-safe: no I/O.
 */
import { shown } from './check';
import { LIMITS } from './limits';
import type { JsonSchema } from './model';

type Schema = Record<string, unknown>;

/**
 * How deep the check follows a value into its schema: a recursive schema (`$ref`) or
 * `additionalProperties` would otherwise follow a value nested thousands of levels deep.
 */
const MAX_VISIT_DEPTH = LIMITS.jsonDepth * 2;

/** Problems of `value` against `schema`, each naming the path (`$.amount`) and what would be valid; empty when it matches. */
export function schemaProblems(schema: JsonSchema, value: unknown): string[] {
  const problems: string[] = [];
  visit(schema as Schema, value, '$', schema as Schema, problems);
  return problems;
}

function visit(s: Schema | boolean, v: unknown, at: string, root: Schema, out: string[], depth = 0): void {
  if (s === true || s === undefined) return;
  if (depth > MAX_VISIT_DEPTH) {
    out.push(
      `${at.slice(0, 80)}… is nested deeper than ${MAX_VISIT_DEPTH} levels, more than the parameters are checked to`,
    );
    return;
  }
  if (s === false) {
    out.push(`${at} is not allowed`);
    return;
  }
  if (typeof s.$ref === 'string') {
    const target = resolveRef(root, s.$ref);
    if (target) visit(target, v, at, root, out, depth + 1);
    return;
  }
  if (s.type !== undefined && !typeMatches(s.type, v)) {
    out.push(`${at} must be ${[s.type].flat().join(' or ')}, got ${typeOf(v)}`);
    return;
  }
  if (Array.isArray(s.enum) && !s.enum.some((e) => same(e, v)))
    out.push(`${at} must be one of ${s.enum.map((e) => JSON.stringify(e)).join(', ')}, got ${shown(v)}`);
  if ('const' in s && !same(s.const, v)) out.push(`${at} must be ${JSON.stringify(s.const)}, got ${shown(v)}`);
  if (Array.isArray(s.allOf)) for (const sub of s.allOf) visit(sub as Schema, v, at, root, out, depth + 1);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = s[key];
    if (!Array.isArray(options)) continue;
    const fits = options.filter((sub) => schemaProblemsAt(sub as Schema, v, at, root, depth + 1).length === 0).length;
    if (key === 'anyOf' ? fits === 0 : fits !== 1)
      out.push(`${at} matches ${fits} of the ${options.length} allowed shapes (${key})`);
  }
  if (typeof v === 'number') numberProblems(s, v, at, out);
  if (typeof v === 'string') stringProblems(s, v, at, out);
  if (Array.isArray(v)) {
    if (typeof s.minItems === 'number' && v.length < s.minItems)
      out.push(`${at} must have at least ${s.minItems} items, got ${v.length}`);
    if (typeof s.maxItems === 'number' && v.length > s.maxItems)
      out.push(`${at} must have at most ${s.maxItems} items, got ${v.length}`);
    if (s.items && typeof s.items === 'object' && !Array.isArray(s.items))
      v.forEach((x, i) => visit(s.items as Schema, x, `${at}[${i}]`, root, out, depth + 1));
  }
  if (isObject(v)) objectProblems(s, v, at, root, out, depth + 1);
}

function schemaProblemsAt(s: Schema, v: unknown, at: string, root: Schema, depth: number): string[] {
  const out: string[] = [];
  visit(s, v, at, root, out, depth);
  return out;
}

function objectProblems(
  s: Schema,
  v: Record<string, unknown>,
  at: string,
  root: Schema,
  out: string[],
  depth: number,
): void {
  const properties = isObject(s.properties) ? (s.properties as Record<string, Schema>) : {};
  for (const name of Array.isArray(s.required) ? (s.required as string[]) : []) {
    if (!Object.hasOwn(v, name)) out.push(`${at}.${name} is required`);
  }
  for (const [name, value] of Object.entries(v)) {
    const property = Object.hasOwn(properties, name) ? properties[name] : undefined;
    if (property !== undefined) visit(property, value, `${at}.${name}`, root, out, depth);
    else if (s.additionalProperties === false)
      out.push(`${at}.${name} is not allowed (allowed: ${Object.keys(properties).join(', ') || 'none'})`);
    else if (isObject(s.additionalProperties))
      visit(s.additionalProperties as Schema, value, `${at}.${name}`, root, out, depth);
  }
}

function numberProblems(s: Schema, v: number, at: string, out: string[]): void {
  if (typeof s.minimum === 'number' && v < s.minimum) out.push(`${at} must be >= ${s.minimum}, got ${v}`);
  if (typeof s.maximum === 'number' && v > s.maximum) out.push(`${at} must be <= ${s.maximum}, got ${v}`);
  if (typeof s.exclusiveMinimum === 'number' && v <= s.exclusiveMinimum)
    out.push(`${at} must be > ${s.exclusiveMinimum}, got ${v}`);
  if (typeof s.exclusiveMaximum === 'number' && v >= s.exclusiveMaximum)
    out.push(`${at} must be < ${s.exclusiveMaximum}, got ${v}`);
}

function stringProblems(s: Schema, v: string, at: string, out: string[]): void {
  if (typeof s.minLength === 'number' && v.length < s.minLength)
    out.push(`${at} must be at least ${s.minLength} characters, got ${v.length}`);
  if (typeof s.maxLength === 'number' && v.length > s.maxLength)
    out.push(`${at} must be at most ${s.maxLength} characters, got ${v.length}`);
  if (typeof s.pattern === 'string') {
    let re: RegExp | undefined;
    try {
      re = new RegExp(s.pattern, 'u');
    } catch {
      re = undefined;
    }
    if (re && !re.test(v)) out.push(`${at} must match /${s.pattern}/, got ${shown(v)}`);
  }
}

function typeMatches(type: unknown, v: unknown): boolean {
  return [type].flat().some((t) => {
    switch (t) {
      case 'integer':
        return typeof v === 'number' && Number.isInteger(v);
      case 'number':
        return typeof v === 'number' && Number.isFinite(v);
      case 'object':
        return isObject(v);
      case 'array':
        return Array.isArray(v);
      case 'null':
        return v === null;
      default:
        return typeof v === t;
    }
  });
}

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number' && Number.isInteger(v)) return `integer ${v}`;
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'
    ? `${typeof v} ${JSON.stringify(v)}`
    : typeof v;
}

function resolveRef(root: Schema, ref: string): Schema | undefined {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const part of ref.slice(1).split('/').filter(Boolean)) {
    node = isObject(node) ? node[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  }
  return isObject(node) ? (node as Schema) : undefined;
}

function same(a: unknown, b: unknown): boolean {
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    // Too deep to write: no enum or const value of a schema is.
    return false;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
