/**
 * The side-effect log of the model-based harness: one JSON line per tool attempt, in a file every
 * worker process appends to (`MODEL_EFFECTS`). A tool applies its effect once per idempotency key
 * (as a payment API would) and logs an attempt that finds its key applied as `deduped`; each line
 * keeps the call's id, the run's `context` and the arguments, so the harness can count effects
 * applied under two keys, tools that ran without an approval, and contexts lost on the way.
 */
import fs from 'node:fs';

/** One line of the log. */
export interface EffectLine {
  kind: 'applied' | 'deduped';
  key: string;
  workflowId: string;
  runId: string;
  toolCallId: string;
  tool: string;
  agent: string;
  args: unknown;
  /** `context.context` as the tool received it. */
  context: unknown;
  /** The team version of the worker that ran it. */
  version: string;
  attempt: number;
  pid: number;
  at: number;
}

/** The log file of this worker process. */
export function effectsFile(): string {
  const file = process.env.MODEL_EFFECTS;
  if (!file) throw new Error('MODEL_EFFECTS must name the side-effect log file');
  return file;
}

/** Every line of the log (none when it does not exist yet); a torn last line of a killed worker is skipped. */
export function readEffects(file: string): EffectLine[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return text.split('\n').flatMap((line) => {
    try {
      return line ? [JSON.parse(line) as EffectLine] : [];
    } catch {
      return [];
    }
  });
}

/** Apply a tool's effect once per idempotency key, logging the attempt; answers what the first application answered. */
export function applyOnce(entry: Omit<EffectLine, 'kind' | 'pid' | 'at'>): { applied: boolean } {
  const file = effectsFile();
  const earlier = readEffects(file).some((e) => e.kind === 'applied' && e.key === entry.key);
  const line: EffectLine = { ...entry, kind: earlier ? 'deduped' : 'applied', pid: process.pid, at: Date.now() };
  // One write() per line with O_APPEND: lines of concurrent workers never interleave.
  fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
  return { applied: !earlier };
}
