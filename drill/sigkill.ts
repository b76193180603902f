/**
 * The SIGKILL drill: the chains run once without faults, then again while workers are SIGKILLed
 * at chosen moments (a model call, a tool call after its effect, an approval wait, right after a
 * model asked for a handoff) and restarted; or, in long-call mode, again and again during one long
 * tool call of each chain (see ./longCall.ts).
 */
import path from 'node:path';
import { DrillServer } from './devserver';
import { seconds, type Cell } from './report';
import { chainsOf, rig, verdict, type DrillRig, type DrillSettings } from './run';
import { killDuringLongCalls, longCallRows } from './longCall';
import { inspectHistory, recoveryAfterKill } from './verify';
import type { Kill } from './workers';

/** What a drill prints. */
export interface DrillReport {
  title: string;
  summary: Record<string, Cell>;
  faults: Record<string, Cell>[];
  problems: string[];
  /** Raw material for a closer look (written to report.json). */
  details?: unknown;
  /** More tables to print after the faults, each with a title. */
  tables?: { title: string; rows: Record<string, Cell>[] }[];
}

const PHASES = ['model', 'tool', 'approval', 'handoff'] as const;
type Phase = (typeof PHASES)[number];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Run the SIGKILL drill against `TEMPORAL_ADDRESS`, or a dev server of its own. */
export async function sigkillDrill(s: DrillSettings): Promise<DrillReport> {
  const server = process.env.TEMPORAL_ADDRESS
    ? undefined
    : await DrillServer.create({ logFile: path.join(s.dir, 'sigkill-server.log') });
  await server?.start();
  const r = await rig(s, 'sigkill', server?.address ?? process.env.TEMPORAL_ADDRESS!);
  try {
    const baseline = await chainsOf(s, r, 'base');
    let running = true;
    const longCalls = s.longCallMs !== undefined;
    const killer = longCalls
      ? killDuringLongCalls(s, r, () => running)
      : killLoop(s, r, () => running).then(() => new Map<string, number>());
    const faulted = await chainsOf(s, r, 'kill');
    running = false;
    const hits = await killer;
    const recoveries = new Map<Kill, number | undefined>();
    const v = await verdict(r, baseline, faulted, (histories) => {
      for (const k of r.pool.kills) recoveries.set(k, recoveryAfterKill(k, r.pool.starts, histories, r.pool.kills));
      return [...recoveries.values()].filter((ms): ms is number => ms !== undefined);
    });
    const rows = longCalls ? await longCallRows(r, faulted, hits) : [];
    const tooFew = faulted.filter((c) => (hits.get(c.workflowId) ?? 0) < s.killsPerCall);
    if (longCalls)
      for (const c of tooFew)
        v.problems.push(
          `${c.workflowId}: its long call took ${hits.get(c.workflowId) ?? 0} kills, not ${s.killsPerCall}`,
        );
    const mode = longCalls ? `, each chain's ${seconds(s.longCallMs)} tool call killed ${s.killsPerCall} times` : '';
    return {
      title: `SIGKILL drill: ${s.chains} chains, ${s.workers} workers, heartbeat timeout ${s.heartbeatTimeout ?? '3 seconds (default)'}${mode}`,
      summary: { drill: 'sigkill', kills: r.pool.kills.length, 'worker crashes': r.pool.crashes.length, ...v.row },
      faults: r.pool.kills.map((k, i) => ({
        kill: i + 1,
        phase: k.phase,
        worker: k.identity,
        'calls in flight': callsInFlight(k),
        recovery: seconds(recoveries.get(k)),
      })),
      problems: v.problems,
      ...(longCalls ? { tables: [{ title: 'long calls', rows }] } : {}),
      details: { kills: r.pool.kills, starts: r.pool.starts, histories: v.histories },
    };
  } finally {
    await r.close();
    await server?.kill();
  }
}

/** e.g. `5 (4 model, 1 tool; 2 already retried)`. */
function callsInFlight(k: Kill): string | undefined {
  if (k.inFlight.length === 0) return undefined;
  const model = k.inFlight.filter((a) => a.activity === 'callModel').length;
  const tool = k.inFlight.filter((a) => a.activity === 'runTool').length;
  const retried = k.inFlight.filter((a) => a.attempt > 1).length;
  return `${k.inFlight.length} (${model} model, ${tool} tool${retried ? `; ${retried} already retried` : ''})`;
}

async function killLoop(s: DrillSettings, r: DrillRig, running: () => boolean): Promise<void> {
  for (let n = 0; running(); n++) {
    const [min, max] = s.killEveryMs;
    await sleep(min + r.random() * (max - min));
    if (!running()) return;
    const phase = PHASES[n % PHASES.length]!;
    await killDuring(phase, r, running);
  }
}

/** Wait (a few seconds at most) for a worker in `phase` and SIGKILL it. */
async function killDuring(phase: Phase, r: DrillRig, running: () => boolean): Promise<void> {
  const { pool, random } = r;
  // One worker dies at a time, and a survivor is left to take over (unless there is only one).
  const killable = () => (pool.liveSlots().length > 1 || pool.size === 1 ? pool.liveSlots() : []);
  const deadline = Date.now() + 5000;
  if (phase === 'handoff') {
    // Right after a model asked for a handoff, while the workflow task recording it is due.
    await new Promise<void>((resolve) => {
      const off = pool.onHandoffAnswered((slot) => {
        if (!killable().includes(slot)) return;
        off();
        setTimeout(() => (pool.kill(slot, phase), resolve()), random() * 30);
      });
      setTimeout(() => (off(), resolve()), Math.max(0, deadline - Date.now()));
    });
    return;
  }
  while (running() && Date.now() < deadline) {
    const slot = await target(phase, r, killable());
    if (slot !== undefined) {
      // Somewhere inside the call, not always at its first millisecond.
      await sleep(random() * 150);
      if (killable().includes(slot) && (phase === 'approval' || busyWith(phase, r, slot))) {
        pool.kill(slot, phase);
        return;
      }
    }
    await sleep(50);
  }
}

function busyWith(phase: 'model' | 'tool', r: DrillRig, slot: number): boolean {
  const activity = phase === 'model' ? 'callModel' : 'runTool';
  return r.pool.inFlight(slot).some((a) => a.activity === activity);
}

/**
 * A worker to kill in `phase`: one running a model or tool call, or for an approval wait the worker
 * that ran the last workflow task of a chain now waiting (the one holding it in its cache).
 */
async function target(phase: Exclude<Phase, 'handoff'>, r: DrillRig, slots: number[]): Promise<number | undefined> {
  if (phase !== 'approval') {
    const busy = slots.filter((slot) => busyWith(phase, r, slot));
    return busy[Math.floor(r.random() * busy.length)];
  }
  let waiting: string[];
  try {
    waiting = (await r.baton.pending()).map((p) => p.workflowId).filter((id) => id.startsWith(`${r.tag}-kill-`));
  } catch {
    return undefined;
  }
  const id = waiting[Math.floor(r.random() * waiting.length)];
  if (!id) return undefined;
  const history = await inspectHistory(r.client, id);
  const holder = history.tasks.filter((t) => t.type === 'started').at(-1)?.identity;
  return slots.find((slot) => r.pool.identityOf(slot) === holder);
}
