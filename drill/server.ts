/**
 * The server-restart drill: a dev server persisted to a database file runs the chains once without
 * faults, then again while it is `kill -9`ed and started again on the same file, at moments when
 * chains wait for approval and calls are in flight. Approvals due while it is down are decided
 * after it is back.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DrillServer } from './devserver';
import { seconds, type Cell } from './report';
import { chainsOf, rig, verdict, type DrillRig, type DrillSettings } from './run';
import type { DrillReport } from './sigkill';
import { percentile } from './verify';

interface Restart {
  killedAt: number;
  backAt: number;
  /** Chains with a model or tool call in flight when the server died. */
  inFlight: string[];
  /** Chains waiting for a decision when the server died. */
  waiting: string[];
  /** Per chain in flight: from the server being back to the chain's next call starting. */
  recoveries: number[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Run the server-restart drill on a dev server of its own. */
export async function serverDrill(s: DrillSettings): Promise<DrillReport> {
  const dbFile = path.join(s.dir, 'server-drill.db');
  fs.rmSync(dbFile, { force: true });
  const server = await DrillServer.create({ dbFile, logFile: path.join(s.dir, 'server-drill-server.log') });
  await server.start();
  const r = await rig(s, 'server', server.address);
  try {
    const baseline = await chainsOf(s, r, 'base');
    let down = false;
    let running = true;
    const restarts: Restart[] = [];
    const restarter = (async () => {
      for (let k = 1; k <= s.restarts && running; k++) {
        // Spread the restarts over the time the chains run.
        await sleep((s.staggerMs / (s.restarts + 1)) * (0.5 + r.random()));
        await untilWorthRestarting(r, () => running);
        if (!running) return;
        const waiting = await waitingChains(r);
        const inFlight = [
          ...new Set(r.pool.liveSlots().flatMap((slot) => r.pool.inFlight(slot).map((a) => a.workflowId))),
        ];
        const killedAt = Date.now();
        down = true;
        await server.kill();
        const [min, max] = s.downMs;
        await sleep(min + r.random() * (max - min));
        await server.start();
        const backAt = Date.now();
        down = false;
        restarts.push({ killedAt, backAt, inFlight, waiting, recoveries: [] });
      }
    })();
    const faulted = await chainsOf(s, r, 'restart', { holdDecisions: () => down });
    running = false;
    await restarter;
    for (const x of restarts) {
      for (const id of x.inFlight) {
        const next = r.pool.starts.find((a) => a.workflowId === id && a.at >= x.backAt);
        if (next) x.recoveries.push(next.at - x.backAt);
      }
    }
    const all = restarts.flatMap((x) => x.recoveries);
    const v = await verdict(r, baseline, faulted, () => all);
    return {
      title: `Server-restart drill: ${s.chains} chains, ${s.workers} workers, dev server on ${dbFile} (recovery: from the server back to each interrupted chain's next call)`,
      summary: { drill: 'server restart', kills: restarts.length, 'worker crashes': r.pool.crashes.length, ...v.row },
      faults: restarts.map((x, i): Record<string, Cell> => ({
        restart: i + 1,
        down: seconds(x.backAt - x.killedAt),
        'chains with calls in flight': x.inFlight.length,
        'chains waiting for approval': x.waiting.length,
        'recovery p50': seconds(percentile(x.recoveries, 50)),
        'recovery max': seconds(percentile(x.recoveries, 100)),
      })),
      problems: v.problems,
    };
  } finally {
    await r.close();
    await server.kill();
  }
}

/** Wait (20 s at most) until some chain waits for approval and some call is in flight. */
async function untilWorthRestarting(r: DrillRig, running: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (running() && Date.now() < deadline) {
    const calls = r.pool
      .liveSlots()
      .some((slot) => r.pool.inFlight(slot).some((a) => a.activity === 'callModel' || a.activity === 'runTool'));
    if (calls && (await waitingChains(r)).length > 0) return;
    await sleep(100);
  }
}

async function waitingChains(r: DrillRig): Promise<string[]> {
  try {
    return (await r.baton.pending())
      .filter((p) => p.workflowId.startsWith(`${r.tag}-restart-`))
      .map((p) => p.workflowId);
  } catch {
    return [];
  }
}
