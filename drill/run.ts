/**
 * What both drills share: their settings, the setup around a server address (client, worker pool,
 * side-effect log), the unfaulted baseline run, and the verdict on a faulted run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { Baton } from '../src';
import { runChains, type ChainOutcome, type RunChainsOptions } from './chains';
import { readEffects, summarizeEffects } from './effects';
import type { Cell } from './report';
import { duplicateHandoffs, inspectHistory, percentile, type HistoryFindings } from './verify';
import { WorkerPool } from './workers';

/** Settings of a drill (see drill/README.md for the command-line flags). */
export interface DrillSettings {
  chains: number;
  workers: number;
  seed: number;
  /** The chains start spread over this long. */
  staggerMs: number;
  /** A person decides an approval this long after it is asked for. */
  approvalDelayMs: [number, number];
  /** Chains still running this long after the last start are stuck. */
  deadlineMs: number;
  /** Run option `heartbeatTimeout` of every chain; baton's default when undefined. */
  heartbeatTimeout?: string;
  modelDelayMs: number;
  toolDelayMs: number;
  /** SIGKILL drill: pause between kills, [min, max] ms. */
  killEveryMs: [number, number];
  /**
   * SIGKILL drill, long-call mode: when set, each chain's first tool call takes this long, and the
   * drill kills the worker running it `killsPerCall` times instead of killing workers by phase.
   */
  longCallMs?: number;
  killsPerCall: number;
  /** Run option `lostWorkerRetries` of every chain; baton's default when undefined. */
  lostWorkerRetries?: number;
  /** Server drill: restarts, and how long the server stays down, [min, max] ms. */
  restarts: number;
  downMs: [number, number];
  /** Working directory: logs, the side-effect log, the server's database. */
  dir: string;
  /** Load drill: chains started at once, against each worker count in `loadWorkers`. */
  loadChains: number;
  loadWorkers: number[];
  /** Load drill: chains waiting for approval, on a worker with `maxCachedWorkflows` = `cacheSize`. */
  waitingChains: number;
  cacheSize: number;
  /** Load drill: starts, signals and checks in flight at once. */
  loadConcurrency: number;
  /** Load drill: how long chains may take after the last start or decision. */
  loadDeadlineMs: number;
  /** Fuzzing drill: generated scenarios in all, over `fuzzLanes` parallel lanes of at most `fuzzTimeMs` each. */
  fuzzRuns: number;
  fuzzLanes: number;
  fuzzTimeMs: number;
  /** Fuzzing drill: generated hostile-input cases, each against a waiting chain and a conversation (drill/hostile.ts). */
  hostileRuns: number;
  /** Fuzzing drill: requests the HTTP fuzzing sends to the service. */
  httpFuzzRequests: number;
}

/** The pieces a drill runs with. */
export interface DrillRig {
  client: Client;
  baton: Baton;
  pool: WorkerPool;
  effectsFile: string;
  tag: string;
  random: () => number;
  close(): Promise<void>;
}

/** A seeded PRNG (mulberry32), so a drill's choices can be repeated with `--seed`. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Connect to `address` and start the worker pool. */
export async function rig(s: DrillSettings, name: string, address: string): Promise<DrillRig> {
  const tag = `drill-${name}-${Date.now().toString(36)}`;
  const effectsFile = path.join(s.dir, `${name}-effects.jsonl`);
  fs.mkdirSync(s.dir, { recursive: true });
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const pool = new WorkerPool({
    size: s.workers,
    address,
    taskQueue: tag,
    logDir: path.join(s.dir, `${name}-workers`),
    env: {
      DRILL_EFFECTS: effectsFile,
      DRILL_MODEL_DELAY_MS: String(s.modelDelayMs),
      DRILL_TOOL_DELAY_MS: String(s.toolDelayMs),
      ...(s.longCallMs !== undefined ? { DRILL_LONG_CALL_MS: String(s.longCallMs) } : {}),
    },
  });
  await pool.start();
  return {
    client,
    baton: new Baton({ client, taskQueue: tag }),
    pool,
    effectsFile,
    tag,
    random: seeded(s.seed),
    close: async () => {
      await pool.stop();
      await connection.close();
    },
  };
}

/** Run the drill's chains (unfaulted or under faults, by who else is acting meanwhile). */
export function chainsOf(
  s: DrillSettings,
  r: DrillRig,
  phase: string,
  extra: Partial<RunChainsOptions> = {},
): Promise<ChainOutcome[]> {
  return runChains({
    baton: r.baton,
    prefix: `${r.tag}-${phase}`,
    count: s.chains,
    staggerMs: s.staggerMs,
    approvalDelayMs: s.approvalDelayMs,
    deadlineMs: s.deadlineMs,
    random: r.random,
    runOptions: {
      ...(s.heartbeatTimeout ? { heartbeatTimeout: s.heartbeatTimeout } : {}),
      ...(s.lostWorkerRetries !== undefined ? { lostWorkerRetries: s.lostWorkerRetries } : {}),
    },
    ...extra,
  });
}

/** The verdict on a faulted run against the unfaulted one. */
export interface Verdict {
  row: Record<string, Cell>;
  histories: HistoryFindings[];
  /** Chain by chain, what went wrong. */
  problems: string[];
}

/**
 * Compare the faulted chains with the baseline and read their histories and the side-effect log;
 * `recoveriesOf` measures the recovery times (ms) from the histories.
 */
export async function verdict(
  r: DrillRig,
  baseline: ChainOutcome[],
  faulted: ChainOutcome[],
  recoveriesOf: (histories: HistoryFindings[]) => number[],
): Promise<Verdict> {
  const problems: string[] = [];
  const histories = await Promise.all(faulted.map((c) => inspectHistory(r.client, c.workflowId)));
  const recoveries = recoveriesOf(histories);
  for (const b of baseline)
    if (b.stuck || b.error) problems.push(`baseline ${b.workflowId} (${b.kind}): ${b.stuck ? 'stuck' : b.error}`);
  let mismatches = 0;
  let dupHandoffs = 0;
  for (const [i, c] of faulted.entries()) {
    const b = baseline[i]!;
    const same = !c.stuck && c.result === b.result && c.error === b.error;
    if (!same) {
      mismatches++;
      problems.push(
        `${c.workflowId} (${c.kind}): ${c.stuck ? 'stuck' : (c.error ?? c.result)} ≠ baseline ${b.error ?? b.result}`,
      );
    }
    const handoffs = c.result ? (JSON.parse(c.result) as { handoffs: unknown[] }).handoffs.length : undefined;
    const dup = duplicateHandoffs(histories[i]!, handoffs);
    if (dup > 0)
      problems.push(`${c.workflowId}: handoff recorded twice (indexes ${histories[i]!.handoffRecords.join(', ')})`);
    dupHandoffs += dup;
    for (const f of histories[i]!.taskFailures)
      problems.push(`${c.workflowId}: WorkflowTaskFailed (event ${f.eventId}, ${f.identity ?? '?'}): ${f.message}`);
  }
  const entries = readEffects(r.effectsFile);
  const faultedIds = new Set(faulted.map((c) => c.workflowId));
  const effects = summarizeEffects(entries, (id) => faultedIds.has(id));
  const base = summarizeEffects(entries, (id) => baseline.some((b) => b.workflowId === id));
  let extraEffects = 0;
  for (const [i, c] of faulted.entries()) {
    const extra =
      (effects.appliedByChain.get(c.workflowId) ?? 0) - (base.appliedByChain.get(baseline[i]!.workflowId) ?? 0);
    if (extra > 0) problems.push(`${c.workflowId}: ${extra} side effect(s) more than the baseline`);
    extraEffects += Math.max(0, extra);
  }
  if (effects.duplicateKeys > 0)
    problems.push(`${effects.duplicateKeys} side effect(s) applied twice under one idempotency key`);
  const failedTasks = histories.reduce((n, h) => n + h.taskFailures.length, 0);
  return {
    histories,
    problems,
    row: {
      chains: faulted.length,
      completed: faulted.filter((c) => !c.stuck).length,
      mismatches,
      'dup handoffs': dupHandoffs,
      // A repeat under one key is also an effect beyond the twin's; count each extra effect once.
      'dup side effects': Math.max(effects.duplicateKeys, extraEffects),
      stuck: faulted.filter((c) => c.stuck).length,
      'wf task failures': failedTasks,
      'side effects': effects.applied,
      'retries deduped': effects.deduped,
      'recovery p50': recoveries.length ? `${((percentile(recoveries, 50) ?? 0) / 1000).toFixed(1)} s` : undefined,
      'recovery max': recoveries.length ? `${((percentile(recoveries, 100) ?? 0) / 1000).toFixed(1)} s` : undefined,
    },
  };
}
