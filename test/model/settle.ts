/**
 * When a sequence's chains have settled: each one ended, or waiting for a person or for the puppet
 * model, with no workflow task or other activity in flight (in Temporal or in a worker process).
 */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { Hosts } from './hosts';

const ActivityState = temporal.api.enums.v1.PendingActivityState;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Wait until every chain of `roots` (and every specialist under it) has ended or waits for the
 * harness: a puppet call waiting for its answer, or a person, with no workflow task or other
 * activity in flight, twice in a row. Answers what is still moving at `timeoutMs`.
 */
export async function settle(client: Client, hosts: Hosts, roots: string[], timeoutMs: number): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  let still: string[] = [];
  let quiet = 0;
  for (;;) {
    still = (await Promise.all(roots.map((id) => motion(client, hosts, id)))).flat();
    quiet = still.length === 0 ? quiet + 1 : 0;
    if (quiet >= 2 || Date.now() > deadline) return still;
    await sleep(120);
  }
}

/** What still moves in chain `workflowId` (its specialists included): nothing when it is settled. */
async function motion(client: Client, hosts: Hosts, workflowId: string, runId?: string): Promise<string[]> {
  let d;
  try {
    d = await client.workflow.getHandle(workflowId, runId).describe();
  } catch (err) {
    return [`${workflowId}: not reachable (${(err as Error).message.slice(0, 80)})`];
  }
  if (d.status.name !== 'RUNNING') return [];
  const out: string[] = [];
  if (d.raw.pendingWorkflowTask) out.push(`${workflowId}: a workflow task`);
  const open = hosts.calls().filter((c) => c.workflowId === workflowId).length;
  let models = 0;
  for (const a of d.raw.pendingActivities ?? []) {
    const type = a.activityType?.name ?? '?';
    if (type === 'callModel' && a.state === ActivityState.PENDING_ACTIVITY_STATE_STARTED && ++models <= open) continue;
    out.push(`${workflowId}: ${type} (${ActivityState[a.state ?? 0]}, attempt ${a.attempt ?? 1})`);
  }
  if (hosts.busy(workflowId)) out.push(`${workflowId}: an activity in a worker`);
  for (const c of d.raw.pendingChildren ?? [])
    out.push(...(await motion(client, hosts, c.workflowId ?? '', c.runId ?? undefined)));
  return out;
}
