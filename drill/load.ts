/**
 * The load drill, on a dev server of its own with worker processes on the load team (zero-latency
 * scripted models):
 *
 * - burst: `--load-chains` chains started at once against one worker process, then against two
 *   (`--load-workers`), each run to completion: failures, throughput, latency per chain, worker
 *   peak RSS and RSS per chain, activities and workflow tasks per chain from history;
 * - waiting: `--waiting` chains whose handoff waits for approval, on one worker whose workflow
 *   cache is bounded (`--cache`, the worker option `maxCachedWorkflows`); then every decision sent
 *   by signal (every fifth a rejection): worker memory while they wait and while the decisions
 *   apply, the time to apply them all, and each chain checked for its approval and for handoffs
 *   lost or recorded twice.
 */
import path from 'node:path';
import { Client, Connection, type WorkflowExecutionInfo } from '@temporalio/client';
import { Baton } from '../src';
import { approveHandoffSignal, rejectHandoffSignal, WorkflowType } from '../src/workflow';
import { DrillServer } from './devserver';
import { LOAD_APPROVAL } from './loadTeam';
import { LoadWorkers, peakRss } from './loadWorkers';
import { seconds, type Cell } from './report';
import type { DrillSettings } from './run';
import type { DrillReport } from './sigkill';
import { checkChains, mapLimit } from './loadChecks';
import { storeFailures } from './serverStore';
import { percentile } from './verify';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mb = (bytes: number | undefined) => (bytes === undefined ? undefined : `${(bytes / 2 ** 20).toFixed(0)} MB`);
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

interface Rig {
  server?: DrillServer;
  address: string;
  connection: Connection;
  client: Client;
}

/** Run both parts of the load drill. */
export async function loadDrill(s: DrillSettings): Promise<DrillReport> {
  const server = process.env.TEMPORAL_ADDRESS
    ? undefined
    : await DrillServer.create({ logFile: path.join(s.dir, 'load-server.log') });
  await server?.start();
  const address = server?.address ?? process.env.TEMPORAL_ADDRESS!;
  const connection = await Connection.connect({ address });
  const rig: Rig = { server, address, connection, client: new Client({ connection }) };
  const problems: string[] = [];
  try {
    const burst: Record<string, Cell>[] = [];
    for (const workers of s.loadWorkers) burst.push(await burstRun(s, rig, workers, problems));
    const waiting = await waitingRun(s, rig, problems);
    return {
      title: `Load drill: ${s.loadChains} chains at once on 1 and 2 workers; ${s.waitingChains} chains waiting for approval on a worker with maxCachedWorkflows ${s.cacheSize} (scripted models, no delay; ${server ? 'dev server of its own' : address})`,
      summary: {
        drill: 'load',
        chains: s.loadChains * s.loadWorkers.length + s.waitingChains,
        failed: [...burst, waiting].reduce((n, r) => n + Number(r.failed ?? 0), 0),
        'lost handoffs': [...burst, waiting].reduce((n, r) => n + Number(r['lost handoffs'] ?? 0), 0),
        'dup handoffs': [...burst, waiting].reduce((n, r) => n + Number(r['dup handoffs'] ?? 0), 0),
        'wf task failures': [...burst, waiting].reduce((n, r) => n + Number(r['wf task failures'] ?? 0), 0),
        'wf task timeouts': [...burst, waiting].reduce((n, r) => n + Number(r['wf task timeouts'] ?? 0), 0),
        'timeouts in server': [...burst, waiting].reduce((n, r) => n + Number(r['timeouts in server'] ?? 0), 0),
        'server peak RSS': mb(peakRss(server?.pid)),
      },
      faults: burst,
      tables: [{ title: 'chains waiting for approval, then decided', rows: [waiting] }],
      problems,
    };
  } finally {
    await connection.close();
    await server?.kill();
  }
}

/** The chains on `taskQueue`, not the team registry a worker runs on the same queue. */
const chainsOn = (taskQueue: string) => `TaskQueue = "${taskQueue}" AND WorkflowType = "${WorkflowType.HANDOFF_RUN}"`;

/** Wait until no chain on `taskQueue` is running (visibility count), or the deadline; answers whether they all closed. */
async function untilClosed(client: Client, taskQueue: string, deadline: number): Promise<boolean> {
  for (;;) {
    const { count } = await client.workflow.count(`${chainsOn(taskQueue)} AND ExecutionStatus = "Running"`);
    if (count === 0) return true;
    if (Date.now() > deadline) return false;
    await sleep(500);
  }
}

async function executions(client: Client, taskQueue: string): Promise<WorkflowExecutionInfo[]> {
  const found: WorkflowExecutionInfo[] = [];
  for await (const wf of client.workflow.list({ query: chainsOn(taskQueue) })) found.push(wf);
  return found;
}

/** Part 1: `loadChains` chains started at once against `workers` worker processes. */
async function burstRun(
  s: DrillSettings,
  rig: Rig,
  workers: number,
  problems: string[],
): Promise<Record<string, Cell>> {
  const taskQueue = `load-burst-${workers}w-${Date.now().toString(36)}`;
  const group = await LoadWorkers.start({
    count: workers,
    address: rig.address,
    taskQueue,
    logDir: path.join(s.dir, 'load-workers'),
    name: `burst${workers}`,
  });
  try {
    await sleep(1500);
    const idle = group.rssNow();
    const baton = new Baton({ client: rig.client, taskQueue });
    const ids = Array.from({ length: s.loadChains }, (_, i) => `${taskQueue}-${i}`);
    const started = Date.now();
    await mapLimit(ids, s.loadConcurrency, (id, i) =>
      baton.start('triage', `Case ${i}: my invoice is wrong`, { workflowId: id }).then(() => undefined),
    );
    const allStarted = Date.now();
    const closed = await untilClosed(rig.client, taskQueue, allStarted + s.loadDeadlineMs);
    const done = Date.now();
    const peaks = group.peaks();
    const infos = await executions(rig.client, taskQueue);
    const latencies = infos.flatMap((i) => (i.closeTime ? [i.closeTime.getTime() - i.startTime.getTime()] : []));
    const c = await checkChains(s, rig.client, ids, () => undefined, problems, storeFailures(rig.server?.logFile));
    if (!closed)
      problems.push(`burst ${workers}w: chains still running ${seconds(s.loadDeadlineMs)} after the last start`);
    const growth = peaks.reduce((n, p, i) => n + Math.max(0, p - (idle[i] ?? 0)), 0);
    return {
      workers,
      chains: s.loadChains,
      completed: infos.filter((i) => i.status.name === 'COMPLETED').length,
      failed:
        c.failed +
        infos.filter((i) => i.status.name !== 'COMPLETED').length -
        (closed ? 0 : infos.filter((i) => i.status.name === 'RUNNING').length),
      'lost handoffs': c.lost,
      'dup handoffs': c.dup,
      'wf task failures': c.taskFailures,
      'wf task timeouts': c.taskTimeouts,
      'timeouts in server': c.serverTimeouts,
      'start all': seconds(allStarted - started),
      'all done': seconds(done - started),
      'chains/s': Number((s.loadChains / ((done - started) / 1000)).toFixed(1)),
      'latency p50': seconds(percentile(latencies, 50)),
      'latency p95': seconds(percentile(latencies, 95)),
      'latency max': seconds(percentile(latencies, 100)),
      'worker RSS idle': idle.map(mb).join(' + '),
      'worker RSS peak': peaks.map(mb).join(' + '),
      'RSS/chain': kb(growth / s.loadChains),
      'activities/chain': Number((c.activities / s.loadChains).toFixed(1)),
      'wf tasks/chain': Number((c.tasks / s.loadChains).toFixed(1)),
      'events/chain': Number((c.events / s.loadChains).toFixed(1)),
    };
  } finally {
    await group.stop();
  }
}

/** Part 2: `waitingChains` chains waiting for approval on a worker with a bounded cache, then decided. */
async function waitingRun(s: DrillSettings, rig: Rig, problems: string[]): Promise<Record<string, Cell>> {
  const taskQueue = `load-waiting-${Date.now().toString(36)}`;
  const group = await LoadWorkers.start({
    count: 1,
    address: rig.address,
    taskQueue,
    maxCachedWorkflows: s.cacheSize,
    logDir: path.join(s.dir, 'load-workers'),
    name: 'waiting',
  });
  const rejected = (i: number) => i % 5 === 4;
  try {
    await sleep(1500);
    const idle = group.rssNow()[0];
    const baton = new Baton({ client: rig.client, taskQueue });
    const n = s.waitingChains;
    const ids = Array.from({ length: n }, (_, i) => `${taskQueue}-${i}`);
    const started = Date.now();
    await mapLimit(ids, s.loadConcurrency, (id, i) =>
      baton
        .start('triage', `Case ${i}: refund please`, { workflowId: id, approvals: [LOAD_APPROVAL] })
        .then(() => undefined),
    );
    const allStarted = Date.now();
    // Every chain waits once BatonStatus says so (visibility catches up within a second or two).
    let waitingCount = 0;
    const deadline = allStarted + s.loadDeadlineMs;
    while (Date.now() < deadline) {
      waitingCount = (
        await rig.client.workflow.count(
          `${chainsOn(taskQueue)} AND BatonStatus = "awaiting_approval" AND ExecutionStatus = "Running"`,
        )
      ).count;
      if (waitingCount >= n) break;
      await sleep(1000);
    }
    const allWaiting = Date.now();
    if (waitingCount < n)
      problems.push(
        `waiting: only ${waitingCount} of ${n} chains waiting for approval ${seconds(s.loadDeadlineMs)} after the last start`,
      );
    await sleep(2000);
    const rssWaiting = group.rssNow()[0];
    const cachedWaiting = group.latest()[0]?.cached;
    const listStarted = Date.now();
    const pending = (await baton.pending()).filter((p) => p.workflowId.startsWith(`${taskQueue}-`));
    const listMs = Date.now() - listStarted;
    const indexOf = new Map(ids.map((id, i) => [id, i]));
    const decideStarted = Date.now();
    await mapLimit(pending, s.loadConcurrency, async (p) => {
      const handle = rig.client.workflow.getHandle(p.workflowId);
      if (rejected(indexOf.get(p.workflowId) ?? 0))
        await handle.signal(rejectHandoffSignal, {
          handoffId: p.handoffId,
          approver: 'load-drill',
          reason: 'not this one',
        });
      else
        await handle.signal(approveHandoffSignal, { handoffId: p.handoffId, approver: 'load-drill', comment: 'fine' });
    });
    const allSent = Date.now();
    const closed = await untilClosed(rig.client, taskQueue, allSent + s.loadDeadlineMs);
    const applied = Date.now();
    if (!closed) problems.push(`waiting: chains still running ${seconds(s.loadDeadlineMs)} after the last decision`);
    const peak = group.peaks()[0];
    const c = await checkChains(
      s,
      rig.client,
      ids,
      (i) => (rejected(i) ? 'rejected' : 'approved'),
      problems,
      storeFailures(rig.server?.logFile),
    );
    const maxCached = group.maxCached();
    if (maxCached > s.cacheSize)
      problems.push(
        `waiting: the worker held ${maxCached} workflows in its cache, more than maxCachedWorkflows ${s.cacheSize}`,
      );
    return {
      chains: n,
      'max cached': `${maxCached} of ${s.cacheSize}`,
      'start all': seconds(allStarted - started),
      'all waiting': seconds(allWaiting - started),
      'pending() lists': `${pending.length} in ${seconds(listMs)}`,
      'decisions sent': seconds(allSent - decideStarted),
      'all applied': seconds(applied - decideStarted),
      'decisions/s': Number((pending.length / ((applied - decideStarted) / 1000)).toFixed(1)),
      completed: n - c.failed,
      failed: c.failed,
      'lost handoffs': c.lost,
      'dup handoffs': c.dup,
      'wf task failures': c.taskFailures,
      'wf task timeouts': c.taskTimeouts,
      'timeouts in server': c.serverTimeouts,
      'worker RSS idle': mb(idle),
      'RSS all waiting': mb(rssWaiting),
      'RSS peak': mb(peak),
      'cached when waiting': cachedWaiting,
    };
  } finally {
    await group.stop();
  }
}
