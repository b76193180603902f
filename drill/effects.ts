/**
 * The drill's side-effect log: one JSON line per tool attempt in a file shared by every worker
 * process (`DRILL_EFFECTS`). A tool applies its effect once per idempotency key and records an
 * attempt that finds its key already applied as `deduped`, so the log shows both that retries
 * happened and that none repeated an effect.
 */
import fs from 'node:fs';

/** One line of the log. */
export interface EffectEntry {
  kind: 'applied' | 'deduped';
  key: string;
  workflowId: string;
  agent: string;
  tool: string;
  attempt: number;
  pid: number;
  at: number;
  /** What the tool answered; a deduped attempt answers the applied one's result. */
  result: unknown;
}

/** The log file of this process's drill. */
export function effectsFile(): string {
  const file = process.env.DRILL_EFFECTS;
  if (!file) throw new Error('DRILL_EFFECTS must name the side-effect log file');
  return file;
}

/** Every entry of a log file (none when it does not exist yet). */
export function readEffects(file: string): EffectEntry[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  // A worker killed mid-write can leave a torn last line; it applied nothing the log can vouch for.
  return text.split('\n').flatMap((line) => {
    try {
      return line ? [JSON.parse(line) as EffectEntry] : [];
    } catch {
      return [];
    }
  });
}

/**
 * Apply `effect` once per idempotency key: the result of the entry already applied under `key`, or
 * the new result, recorded before it is returned.
 */
export function applyOnce(entry: Omit<EffectEntry, 'kind' | 'result' | 'pid' | 'at'>, effect: () => unknown): unknown {
  const file = effectsFile();
  const earlier = readEffects(file).find((e) => e.kind === 'applied' && e.key === entry.key);
  const line: EffectEntry = earlier
    ? { ...entry, kind: 'deduped', result: earlier.result, pid: process.pid, at: Date.now() }
    : { ...entry, kind: 'applied', result: effect(), pid: process.pid, at: Date.now() };
  // One write() per line with O_APPEND: lines of concurrent workers never interleave.
  fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
  return line.result;
}

/** What the log says about a set of chains. */
export interface EffectsSummary {
  applied: number;
  /** Attempts that found their key applied: the tool ran again after a crash and did nothing. */
  deduped: number;
  /** Keys applied more than once, counted once per extra application. */
  duplicateKeys: number;
  /** Applications per workflow id. */
  appliedByChain: Map<string, number>;
}

/** Summarize the entries of the chains whose workflow ids `belongs` accepts. */
export function summarizeEffects(entries: EffectEntry[], belongs: (workflowId: string) => boolean): EffectsSummary {
  const mine = entries.filter((e) => belongs(e.workflowId));
  const applied = mine.filter((e) => e.kind === 'applied');
  const perKey = new Map<string, number>();
  const appliedByChain = new Map<string, number>();
  for (const e of applied) {
    perKey.set(e.key, (perKey.get(e.key) ?? 0) + 1);
    appliedByChain.set(e.workflowId, (appliedByChain.get(e.workflowId) ?? 0) + 1);
  }
  const duplicateKeys = [...perKey.values()].reduce((n, c) => n + c - 1, 0);
  return { applied: applied.length, deduped: mine.length - applied.length, duplicateKeys, appliedByChain };
}
