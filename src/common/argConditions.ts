/**
 * Conditions on the arguments of a call (a tool call's, or a handoff's `{from, to, message}`): when
 * a tool's calls need approval, and when a stage of an approval applies. The type, its check and
 * how it is weighed, below everything that names one.
 *
 * Workflow-safe: no I/O.
 */
import { isRecord, shown } from './check';

/** A condition on one argument of a tool call, e.g. `{ arg: 'amount', op: '>', value: 100 }`. */
export interface ArgCondition {
  /** The argument, or a dotted path into it (`customer.country`). */
  arg: string;
  op: '>' | '>=' | '<' | '<=' | '==' | '!=' | 'in' | 'matches' | 'exists';
  /** A number for comparisons, a list for `in`, a RegExp source for `matches`; none for `exists`. */
  value?: unknown;
}
/** The operators an {@link ArgCondition} may use. */
export const ARG_OPS: readonly ArgCondition['op'][] = ['>', '>=', '<', '<=', '==', '!=', 'in', 'matches', 'exists'];

/** Whether `c` holds for `args` (a dotted `arg` reads into nested objects). */
export function conditionHolds(c: ArgCondition, args: Record<string, unknown>): boolean {
  let v: unknown = args;
  for (const part of c.arg.split('.')) v = isRecord(v) ? v[part] : undefined;
  switch (c.op) {
    case 'exists':
      return v !== undefined && v !== null;
    case '==':
      return JSON.stringify(v) === JSON.stringify(c.value);
    case '!=':
      return JSON.stringify(v) !== JSON.stringify(c.value);
    case 'in':
      return Array.isArray(c.value) && c.value.some((x) => JSON.stringify(x) === JSON.stringify(v));
    case 'matches':
      return typeof v === 'string' && typeof c.value === 'string' && new RegExp(c.value).test(v);
    default: {
      const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
      const limit = c.value as number;
      if (Number.isNaN(n)) return false;
      return c.op === '>' ? n > limit : c.op === '>=' ? n >= limit : c.op === '<' ? n < limit : n <= limit;
    }
  }
}

/** Problems with a list of argument conditions, each naming the field and what would be valid. */
export function argConditionProblems(value: unknown, key: string): string[] {
  if (!Array.isArray(value)) return [`"${key}" must be a list of conditions {arg, op, value}, got ${shown(value)}`];
  return value.flatMap((c, i) => {
    const at = `${key}[${i}]`;
    if (!isRecord(c)) return [`"${at}" must be a condition {arg, op, value}, got ${shown(c)}`];
    const problems: string[] = [];
    if (typeof c.arg !== 'string' || c.arg === '')
      problems.push(`"${at}.arg" must name an argument, got ${shown(c.arg)}`);
    if (!ARG_OPS.includes(c.op as ArgCondition['op']))
      problems.push(`"${at}.op" must be one of ${ARG_OPS.map((o) => `"${o}"`).join(', ')}, got ${shown(c.op)}`);
    else if (['>', '>=', '<', '<='].includes(c.op as string) && typeof c.value !== 'number')
      problems.push(`"${at}.value" must be a number for "${String(c.op)}", got ${shown(c.value)}`);
    else if (c.op === 'in' && !Array.isArray(c.value))
      problems.push(`"${at}.value" must be a list for "in", got ${shown(c.value)}`);
    else if (c.op === 'matches' && !validRegExp(c.value))
      problems.push(`"${at}.value" must be a regular expression source for "matches", got ${shown(c.value)}`);
    else if ((c.op === '==' || c.op === '!=') && c.value === undefined)
      problems.push(`"${at}.value" is missing: "${c.op}" compares the argument with it`);
    else if (c.op === 'exists' && c.value !== undefined)
      problems.push(
        `"${at}.value" is not used by "exists", which asks only whether the argument is given; leave it out`,
      );
    const extra = Object.keys(c).filter((k) => !['arg', 'op', 'value'].includes(k));
    if (extra.length > 0)
      problems.push(`"${at}" has unknown field(s) ${extra.map((k) => `"${k}"`).join(', ')} (valid: arg, op, value)`);
    return problems;
  });
}

function validRegExp(v: unknown): boolean {
  if (typeof v !== 'string') return false;
  try {
    new RegExp(v);
    return true;
  } catch {
    return false;
  }
}
