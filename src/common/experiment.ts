/**
 * Experiments: live traffic split between variants of a team (task queues or worker deployment
 * versions that serve its versions) or of run options, by a key — a chain's or conversation's id,
 * or a field of its context — the same key always landing in the same variant. Plain JSON;
 * workflow-safe (no I/O).
 */
import { isRecord, shown } from './check';
import type { RunOptions } from './options';
import { runOptionProblems } from './options';
import type { RunContext } from './team';

/** One variant of an experiment. */
export interface ExperimentVariant {
  /** Its name: letters, digits, `_` and `-`, at most 64. */
  name: string;
  /** Its share of the traffic, relative to the others'. @default 1 */
  weight?: number;
  /** The task queue whose workers serve this variant's team version. @default the client's */
  taskQueue?: string;
  /** The worker deployment version this variant's chains are pinned to. */
  deployment?: { name: string; buildId: string };
  /** Run options of this variant's chains, over those they are started with. */
  options?: RunOptions;
}

/** An experiment as it is started. */
export interface ExperimentDefinition {
  /** Its id: letters, digits, `_`, `.` and `-`, at most 128. */
  id: string;
  /**
   * What splits the traffic: `id` (the chain's or the conversation's workflow id) or
   * `context.<field>` (a user or tenant id from the run's context; a chain without it is split by its id).
   * @default "id"
   */
  key?: string;
  /** Two or more variants; the first is the one the others are compared with. */
  variants: ExperimentVariant[];
  description?: string;
}

/** An experiment as it stands. */
export interface ExperimentState {
  definition: ExperimentDefinition;
  /** ISO 8601. */
  startedAt: string;
  status: 'running' | 'stopped';
  /** Once stopped: the variant every new chain goes to. */
  winner?: string;
  stoppedAt?: string;
  stoppedBy?: string;
  reason?: string;
}

/** The variant a chain was given, as its history records it (the `batonVariant` memo). */
export interface VariantAssignment {
  experiment: string;
  variant: string;
  /** What the key was: `id` or `context.<field>` (with `(missing)` when the chain had no such field). */
  by: string;
  /** Where the key falls, from 0 to 1: the same key, the same place. */
  bucket: number;
  /** Set when the experiment was stopped and the chain went to its winner. */
  stopped?: boolean;
}

/** Input of the `stopExperiment` update. */
export interface StopExperiment {
  winner: string;
  by?: string;
  reason?: string;
}

const NAME = /^[A-Za-z0-9_-]{1,64}$/;
const ID = /^[A-Za-z0-9_.-]{1,128}$/;
const VARIANT_KEYS = ['name', 'weight', 'taskQueue', 'deployment', 'options'];

/** Problems with an experiment's definition, each naming the field and what would be valid. */
export function experimentProblems(d: unknown): string[] {
  if (!isRecord(d)) return [`an experiment must be an object {id, key?, variants: [...]}, got ${shown(d)}`];
  const problems = Object.keys(d)
    .filter((k) => !['id', 'key', 'variants', 'description'].includes(k))
    .map((k) => `unknown field "${k}" (valid: id, key, variants, description)`);
  if (typeof d.id !== 'string' || !ID.test(d.id))
    problems.push(`"id" must be 1 to 128 letters, digits, "_", "." or "-", got ${shown(d.id)}`);
  if (
    d.key !== undefined &&
    (typeof d.key !== 'string' || !(d.key === 'id' || /^context\.[A-Za-z0-9_.-]{1,100}$/.test(d.key)))
  )
    problems.push(`"key" must be "id" or "context.<field>", got ${shown(d.key)}`);
  if (d.description !== undefined && (typeof d.description !== 'string' || d.description.length > 1000))
    problems.push('"description" must be a text of at most 1000 characters');
  if (!Array.isArray(d.variants) || d.variants.length < 2 || d.variants.length > 10)
    return [...problems, `"variants" must list 2 to 10 variants, got ${shown(d.variants)}`];
  const names = new Set<string>();
  d.variants.forEach((v: unknown, i: number) => {
    const at = `variants[${i}]`;
    if (!isRecord(v))
      return void problems.push(`"${at}" must be an object {name, weight?, taskQueue?, deployment?, options?}`);
    for (const k of Object.keys(v))
      if (!VARIANT_KEYS.includes(k)) problems.push(`unknown field "${at}.${k}" (valid: ${VARIANT_KEYS.join(', ')})`);
    if (typeof v.name !== 'string' || !NAME.test(v.name))
      problems.push(`"${at}.name" must be 1 to 64 letters, digits, "_" or "-", got ${shown(v.name)}`);
    else if (names.has(v.name)) problems.push(`"${at}.name" ${v.name} is given twice`);
    else names.add(v.name);
    if (
      v.weight !== undefined &&
      !(typeof v.weight === 'number' && Number.isFinite(v.weight) && v.weight >= 0 && v.weight <= 1_000_000)
    )
      problems.push(`"${at}.weight" must be a number from 0 to 1000000, got ${shown(v.weight)}`);
    if (
      v.taskQueue !== undefined &&
      (typeof v.taskQueue !== 'string' || v.taskQueue.trim() === '' || v.taskQueue.length > 1000)
    )
      problems.push(`"${at}.taskQueue" must name a task queue, got ${shown(v.taskQueue)}`);
    if (
      v.deployment !== undefined &&
      !(
        isRecord(v.deployment) &&
        typeof v.deployment.name === 'string' &&
        v.deployment.name !== '' &&
        typeof v.deployment.buildId === 'string' &&
        v.deployment.buildId !== ''
      )
    ) {
      problems.push(
        `"${at}.deployment" must be {name, buildId} of a worker deployment version, got ${shown(v.deployment)}`,
      );
    }
    if (v.options !== undefined)
      problems.push(
        ...runOptionProblems(v.options, `${at}.options`).map((p) =>
          p.replace(/^unknown option/, `${at}.options: unknown option`),
        ),
      );
  });
  if (d.variants.every((v: unknown) => isRecord(v) && v.weight === 0))
    problems.push('"variants" must give traffic to at least one variant (a weight above 0)');
  return problems;
}

/**
 * Where `key` falls in experiment `experimentId`, from 0 (inclusive) to 1: a 53-bit hash of both,
 * so a key lands in the same place every time, on every client, and in different places in
 * different experiments.
 */
export function bucketOf(experimentId: string, key: string): number {
  const text = `${experimentId}\n${key}`;
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)) / 2 ** 53;
}

/** The variant a chain (or conversation) with workflow id `workflowId` and `context` gets in `state`. */
export function assignVariant(state: ExperimentState, workflowId: string, context?: RunContext): VariantAssignment {
  const { definition: d } = state;
  const keyName = d.key ?? 'id';
  const field = keyName.startsWith('context.') ? fieldOf(context, keyName.slice('context.'.length)) : undefined;
  const useField = field !== undefined && field !== null && (typeof field === 'string' || typeof field === 'number');
  const by = keyName === 'id' ? 'id' : useField ? keyName : `${keyName} (missing: split by id)`;
  const bucket = bucketOf(d.id, useField ? String(field) : workflowId);
  if (state.status === 'stopped' && state.winner)
    return { experiment: d.id, variant: state.winner, by, bucket, stopped: true };
  const weights = d.variants.map((v) => v.weight ?? 1);
  const total = weights.reduce((a, b) => a + b, 0);
  let at = 0;
  for (let i = 0; i < d.variants.length; i++) {
    at += weights[i]! / total;
    if (bucket < at && weights[i]! > 0) return { experiment: d.id, variant: d.variants[i]!.name, by, bucket };
  }
  const last = [...d.variants].reverse().find((v) => (v.weight ?? 1) > 0)!;
  return { experiment: d.id, variant: last.name, by, bucket };
}

function fieldOf(context: RunContext | undefined, path: string): unknown {
  let value: unknown = context;
  for (const part of path.split('.')) value = isRecord(value) ? value[part] : undefined;
  return value;
}

/** The value of the `BatonVariant` search attribute of a chain in `variant` of `experiment`. */
export function variantAttributeValue(experiment: string, variant: string): string {
  return `${experiment}:${variant}`;
}
