/**
 * The shape of JSON from outside: how deep its arrays and objects nest and how many fields and
 * items they hold, measured without recursion and without looking past the limits, so a value
 * nested 10,000 levels deep (or a cycle a library caller built) is refused by its shape instead
 * of overflowing the stack of whatever walks it next.
 *
 * Workflow-safe: no I/O.
 */
import { LIMITS, type SizeProblem } from './limits';

/** How far a shape check looks: deeper than `depth` levels, or more than `entries` fields and items, is over. */
export interface ShapeLimits {
  /** @default LIMITS.jsonDepth */
  depth?: number;
  /** @default LIMITS.jsonEntries */
  entries?: number;
}

/**
 * The problems of `value` (named `field` in messages) over its shape limits: too deep, or too many
 * fields and items counted through every level. Stops at the first limit passed, so its cost is
 * bounded by the limits, not by the value.
 */
export function shapeOver(field: string, value: unknown, limits: ShapeLimits = {}): SizeProblem[] {
  if (typeof value !== 'object' || value === null) return [];
  const maxDepth = limits.depth ?? LIMITS.jsonDepth;
  const maxEntries = limits.entries ?? LIMITS.jsonEntries;
  let entries = 0;
  const stack: [object, number][] = [[value, 1]];
  for (let top = stack.pop(); top; top = stack.pop()) {
    const [node, level] = top;
    if (level > maxDepth) return [{ field, size: maxDepth + 1, limit: maxDepth, unit: 'levels', more: true }];
    const children: unknown[] = Array.isArray(node) ? node : Object.values(node);
    entries += children.length;
    if (entries > maxEntries) return [{ field, size: maxEntries + 1, limit: maxEntries, unit: 'entries', more: true }];
    for (const child of children) if (typeof child === 'object' && child !== null) stack.push([child, level + 1]);
  }
  return [];
}

/** Whether `value` is within the shape limits. */
export function shapeFits(value: unknown, limits: ShapeLimits = {}): boolean {
  return shapeOver('', value, limits).length === 0;
}
