/** How the load drill checks its chains (each result against its history), and the bounded map it runs them through. */
import type { Client } from '@temporalio/client';
import type { HandoffRunResult } from '../src/workflow';
import { LOAD_HANDOFF, LOAD_OUTPUT } from './loadTeam';
import type { DrillSettings } from './run';
import { failedWritesBetween } from './serverStore';
import { inspectHistory } from './verify';

/** Run `fn` over `items` with at most `limit` calls in flight; results in order. */
export async function mapLimit<T, R>(
  items: T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

/** What each chain's result and history say: failures, lost and duplicated handoffs, per-chain counts. */
export interface Checked {
  failed: number;
  lost: number;
  dup: number;
  taskFailures: number;
  /** Workflow tasks started and not completed within their timeout, on workers nobody killed, while the server wrote what it was asked to. */
  taskTimeouts: number;
  /** Workflow tasks that timed out while the server logged failed writes (its database behind), not counted in `taskTimeouts`. */
  serverTimeouts: number;
  activities: number;
  tasks: number;
  events: number;
}

/**
 * Check every chain: it completed with the expected answer and handoff (approved by the drill, or
 * none when the drill rejected it), and history records each handoff exactly once. A workflow task
 * timed out on a live worker is a problem unless the server logged a failed write while it ran
 * (`serverFailures`, read from its log by ./serverStore.ts once the chains ended): then the task
 * waited on the server's database.
 */
export async function checkChains(
  s: DrillSettings,
  client: Client,
  ids: string[],
  expectApproval: (i: number) => 'approved' | 'rejected' | undefined,
  problems: string[],
  serverFailures: number[],
): Promise<Checked> {
  const c: Checked = {
    failed: 0,
    lost: 0,
    dup: 0,
    taskFailures: 0,
    taskTimeouts: 0,
    serverTimeouts: 0,
    activities: 0,
    tasks: 0,
    events: 0,
  };
  const report = (id: string, what: string) => problems.length < 50 && problems.push(`${id}: ${what}`);
  await mapLimit(ids, s.loadConcurrency, async (id, i) => {
    const expected = expectApproval(i);
    let result: HandoffRunResult;
    try {
      result = await client.workflow.getHandle(id).result();
    } catch (err) {
      c.failed++;
      report(id, `failed: ${String(err)}`);
      return;
    }
    const history = await inspectHistory(client, id);
    const wantHandoffs = expected === 'rejected' ? 0 : 1;
    const got = result.handoffChain;
    const unique = new Set(history.handoffRecords).size;
    c.dup += history.handoffRecords.length - unique + Math.max(0, got.length - wantHandoffs);
    c.lost += Math.max(0, wantHandoffs - got.length) + Math.max(0, got.length - unique);
    c.taskFailures += history.taskFailures.length;
    const inServer = history.taskTimeouts.filter((t) => failedWritesBetween(serverFailures, t.started, t.timedOut));
    const onWorker = history.taskTimeouts.length - inServer.length;
    c.serverTimeouts += inServer.length;
    c.taskTimeouts += onWorker;
    if (onWorker > 0)
      report(id, `${onWorker} workflow task(s) timed out on a live worker while the server wrote what it was asked to`);
    c.tasks += history.tasks.filter((t) => t.type === 'completed').length;
    c.events += history.events;
    c.activities += history.activities;
    const h = got[0];
    const output = expected === 'rejected' ? LOAD_OUTPUT.rejected : LOAD_OUTPUT.resolved;
    const wrong =
      result.output !== output ||
      (wantHandoffs === 1 &&
        (h?.from !== LOAD_HANDOFF.from || h.to !== LOAD_HANDOFF.to || h.message !== LOAD_HANDOFF.message)) ||
      (expected === 'approved' && (h?.approval?.outcome !== 'approved' || h.approval.approver !== 'load-drill'));
    if (wrong) report(id, `ended differently: ${JSON.stringify({ output: result.output, handoffs: got })}`);
    if (got.length !== wantHandoffs || history.handoffRecords.length !== wantHandoffs)
      report(
        id,
        `${got.length} handoffs in the result, ${history.handoffRecords.length} in history, ${wantHandoffs} expected`,
      );
    for (const f of history.taskFailures) report(id, `WorkflowTaskFailed: ${f.message}`);
  });
  return c;
}
