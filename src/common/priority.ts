/**
 * Task priority and fairness of a run: the `priority` run option, in Temporal's own terms
 * (`priorityKey`, `fairnessKey`, `fairnessWeight`). A chain started with it has its workflow tasks,
 * its model and tool calls and its specialists dispatched with it, so interactive conversations go
 * before batch chains and one tenant's burst does not starve the others. See docs/priority.md.
 *
 * Workflow-safe: no I/O.
 */
import type { Priority } from '@temporalio/common';
import { type Check, integer, isRecord, number, shown } from './check';
import { utf8Bytes } from './limits';

/**
 * How Temporal orders a run's tasks when they wait in a backlog. Every field is optional; one left
 * out is inherited from the workflow that started the task (Temporal's rule), else the server's default.
 */
export interface RunPriority {
  /**
   * 1 goes first; a server has five levels unless its `matching.priorityLevels` says otherwise.
   * Tasks of one level are taken in order (or fairly, by `fairnessKey`).
   * @default 3 (the middle of Temporal's five levels)
   */
  priorityKey?: number;
  /**
   * Who the work is for, e.g. a tenant's id: within one priority level, tasks are dispatched in
   * proportion to their key's weight, so one key's backlog does not hold up the others. At most 64
   * bytes. Needs fairness turned on in the namespace (see docs/priority.md).
   * @default "" (no fairness key: one queue per priority level)
   */
  fairnessKey?: string;
  /**
   * This key's share against other keys (a task queue's own weight overrides win).
   * @default 1
   */
  fairnessWeight?: number;
}

/** The largest priority key baton takes: Temporal's servers have 5 levels by default, and clusters may configure more. */
export const MAX_PRIORITY_KEY = 100;
/** The longest fairness key Temporal takes, in bytes. */
export const MAX_FAIRNESS_KEY_BYTES = 64;
/** Fairness weights Temporal takes. */
export const FAIRNESS_WEIGHT_RANGE = { min: 0.001, max: 1000 } as const;

const FIELDS = ['priorityKey', 'fairnessKey', 'fairnessWeight'];

const fairnessKeyCheck: Check = (v, key) => {
  if (typeof v !== 'string' || v === '')
    return [
      `"${key}" must be a non-empty string of at most ${MAX_FAIRNESS_KEY_BYTES} bytes (a tenant's id, say), got ${shown(v)}`,
    ];
  const bytes = utf8Bytes(v);
  return bytes > MAX_FAIRNESS_KEY_BYTES
    ? [`"${key}" is ${bytes} bytes; Temporal takes fairness keys of at most ${MAX_FAIRNESS_KEY_BYTES} bytes`]
    : [];
};

/**
 * Problems with a run's `priority`: unknown fields, a key out of range, a fairness key Temporal would
 * refuse (which would fail every workflow task that schedules a call with it).
 */
export const priorityCheck: Check = (v, key) => {
  if (!isRecord(v))
    return [`"${key}" must be an object {priorityKey?, fairnessKey?, fairnessWeight?}, got ${shown(v)}`];
  const problems: string[] = [];
  if (v.priorityKey !== undefined)
    problems.push(
      ...integer(1, MAX_PRIORITY_KEY)(v.priorityKey, `${key}.priorityKey`).map((p) => `${p} (1 goes first)`),
    );
  if (v.fairnessKey !== undefined) problems.push(...fairnessKeyCheck(v.fairnessKey, `${key}.fairnessKey`));
  if (v.fairnessWeight !== undefined)
    problems.push(
      ...number(FAIRNESS_WEIGHT_RANGE.min, FAIRNESS_WEIGHT_RANGE.max)(v.fairnessWeight, `${key}.fairnessWeight`),
    );
  const extra = Object.keys(v).filter((k) => !FIELDS.includes(k));
  if (extra.length > 0)
    problems.push(
      `"${key}" has unknown field(s) ${extra.map((k) => JSON.stringify(k.slice(0, 64))).join(', ')} (valid: ${FIELDS.join(', ')})`,
    );
  return problems;
};

/** Temporal's `Priority` of a run's (validated) `priority`; `undefined` when it sets nothing, so tasks inherit. */
export function temporalPriority(priority: RunPriority | undefined): Priority | undefined {
  if (!priority) return undefined;
  const { priorityKey, fairnessKey, fairnessWeight } = priority;
  if (priorityKey === undefined && fairnessKey === undefined && fairnessWeight === undefined) return undefined;
  return {
    ...(priorityKey !== undefined ? { priorityKey } : {}),
    ...(fairnessKey !== undefined ? { fairnessKey } : {}),
    ...(fairnessWeight !== undefined ? { fairnessWeight } : {}),
  };
}

/** `{priority}` for an activity, child workflow or workflow start, or nothing (so the options and commands stay as they were). */
export function priorityOption(priority: RunPriority | undefined): { priority?: Priority } {
  const p = temporalPriority(priority);
  return p ? { priority: p } : {};
}
