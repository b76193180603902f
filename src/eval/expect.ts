/**
 * A case's expectations weighed against a chain: its outcome, route, final agent, and answer (a
 * regular expression, a JSON Schema, a zod schema from a module), or a chain to avoid.
 */
import path from 'node:path';
import { schemaProblems } from '../common/jsonSchema';
import { clipText } from '../common/limits';
import type { ChainSummary, ExpectationResult, Expectations } from '../common/eval/types';

/** A chain as expectations read it: its summary and its whole answer. */
export interface Weighed {
  summary: ChainSummary;
  /** The answer's value: text, or a structured answer's value. */
  output: unknown;
}

/**
 * Every expectation of `expect` (the judge's aside) weighed against `chain`. A case always expects
 * its outcome: `completed` unless it says `failed`.
 */
export function weighExpectations(expect: Expectations | undefined, chain: Weighed): ExpectationResult[] {
  const e = expect ?? {};
  const { summary } = chain;
  const results: ExpectationResult[] = [];
  const outcome = e.outcome ?? 'completed';
  const status = summary.outcome.status;
  results.push({
    name: 'outcome',
    ok: status === outcome,
    detail: status === outcome ? status : `${describe(summary)} (expected ${outcome})`,
  });
  if (e.route) {
    const ok = same(summary.route, e.route);
    results.push({
      name: 'route',
      ok,
      detail: ok ? e.route.join(' → ') : `${summary.route.join(' → ') || '(none)'} (expected ${e.route.join(' → ')})`,
    });
  }
  if (e.finalAgent !== undefined) {
    const ok = summary.finalAgent === e.finalAgent;
    results.push({
      name: 'finalAgent',
      ok,
      detail: ok ? e.finalAgent : `${summary.finalAgent ?? '(none)'} (expected ${e.finalAgent})`,
    });
  }
  if (e.output) results.push(...outputResults(e.output, chain.output));
  if (e.avoid) {
    const sameRoute = e.avoid.route === undefined || same(summary.route, e.avoid.route);
    const sameOutput = e.avoid.output === undefined || textOf(chain.output) === e.avoid.output;
    const ok = !(sameRoute && sameOutput) || status !== 'completed';
    results.push({
      name: 'avoid',
      ok,
      detail: ok ? 'differs from the chain marked bad' : 'repeats the chain marked bad (same route and answer)',
    });
  }
  return results;
}

function outputResults(o: NonNullable<Expectations['output']>, output: unknown): ExpectationResult[] {
  const results: ExpectationResult[] = [];
  const text = textOf(output);
  if (o.regex !== undefined) {
    const ok = new RegExp(o.regex, o.flags).test(text);
    results.push({
      name: 'output.regex',
      ok,
      detail: ok
        ? `matches /${o.regex}/${o.flags ?? ''}`
        : `${JSON.stringify(clipText(text, 120))} does not match /${o.regex}/${o.flags ?? ''}`,
    });
  }
  if (o.jsonSchema !== undefined) {
    const value = valueOf(output);
    const problems = value === undefined ? ['the answer is not JSON'] : schemaProblems(o.jsonSchema, value);
    results.push({
      name: 'output.jsonSchema',
      ok: problems.length === 0,
      detail: problems.length === 0 ? 'matches the schema' : problems.slice(0, 3).join('; '),
    });
  }
  if (o.zod !== undefined) results.push(zodResult(o.zod, output));
  return results;
}

/** A zod schema named `<module>#<export>` (the module's default export without `#`), checked against the answer's value. */
function zodResult(ref: string, output: unknown): ExpectationResult {
  const [file, name] = ref.split('#') as [string, string | undefined];
  let schema:
    | {
        safeParse?: (v: unknown) => {
          success: boolean;
          error?: { issues: { path: PropertyKey[]; message: string }[] };
        };
      }
    | undefined;
  try {
    const mod = require(path.resolve(file)) as Record<string, unknown>;
    schema = (name ? mod[name] : (mod.default ?? mod)) as typeof schema;
  } catch (err) {
    return { name: 'output.zod', ok: false, detail: `cannot load ${ref}: ${(err as Error).message}` };
  }
  if (typeof schema?.safeParse !== 'function')
    return { name: 'output.zod', ok: false, detail: `${ref} is not a zod schema (it has no safeParse)` };
  const value = valueOf(output) ?? output;
  const parsed = schema.safeParse(value);
  if (parsed.success) return { name: 'output.zod', ok: true, detail: `matches ${name ?? 'the schema'}` };
  const issues = (parsed.error?.issues ?? [])
    .slice(0, 3)
    .map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`);
  return { name: 'output.zod', ok: false, detail: issues.join('; ') || 'does not match' };
}

function describe(s: ChainSummary): string {
  return s.outcome.error ? `${s.outcome.status} (${s.outcome.error})` : s.outcome.status;
}

function same(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function textOf(output: unknown): string {
  if (output === undefined || output === null) return '';
  return typeof output === 'string' ? output : JSON.stringify(output);
}

/** The answer as a JSON value: a structured answer as it is, a text that is JSON parsed. */
function valueOf(output: unknown): unknown {
  if (typeof output !== 'string') return output ?? undefined;
  try {
    return JSON.parse(output) as unknown;
  } catch {
    return undefined;
  }
}
