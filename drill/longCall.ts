/**
 * The SIGKILL drill's long-call mode (`--long-call MS`): each chain's first tool call
 * (`registerCase`) takes MS, and the worker running it is killed `--kills-per-call` times during
 * it, more often than the retry budget allows. Each call must still complete once, with its effect
 * applied once, and the audit must show it started again after each lost worker.
 */
import type { Cell } from './report';
import type { DrillRig, DrillSettings } from './run';
import type { ChainOutcome } from './chains';
import type { Attempt } from './workers';

/** The long tool of the drill team. */
const LONG_TOOL = 'registerCase';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Kill the worker running a chain's long call, at a random moment inside it, until each chain's
 * long call has been hit `s.killsPerCall` times; the calls hit least go first. No survivor is kept:
 * a call whose last live worker dies waits for a worker to come back. Resolves with the kills that
 * hit each chain's long call.
 */
export async function killDuringLongCalls(
  s: DrillSettings,
  r: DrillRig,
  running: () => boolean,
): Promise<Map<string, number>> {
  const hits = new Map<string, number>();
  const aims = new Map<string, number>();
  const window = Math.max(200, Math.min((s.longCallMs ?? 0) - 800, 2000));
  const aim = (a: Attempt) => {
    const key = `${a.workflowId}/${a.activityId}/${a.attempt}`;
    if (!aims.has(key)) aims.set(key, a.at + 300 + r.random() * window);
    return aims.get(key)!;
  };
  const due = (a: Attempt) =>
    a.tool === LONG_TOOL && (hits.get(a.workflowId) ?? 0) < s.killsPerCall && Date.now() >= aim(a);
  while (running()) {
    const targets = r.pool.liveSlots().flatMap((slot) =>
      r.pool
        .inFlight(slot)
        .filter(due)
        .map((a) => ({ slot, hits: hits.get(a.workflowId) ?? 0 })),
    );
    const target = targets.sort((a, b) => a.hits - b.hits)[0];
    const kill = target && r.pool.kill(target.slot, 'long call');
    for (const a of kill?.inFlight ?? [])
      if (a.tool === LONG_TOOL) hits.set(a.workflowId, (hits.get(a.workflowId) ?? 0) + 1);
    await sleep(50);
  }
  return hits;
}

/** A row per faulted chain: the kills its long call took, and what its audit says of that call. */
export async function longCallRows(
  r: DrillRig,
  faulted: ChainOutcome[],
  hits: Map<string, number>,
): Promise<Record<string, Cell>[]> {
  return Promise.all(
    faulted.map(async (c) => {
      const audit = await r.baton.audit(c.workflowId).catch(() => undefined);
      const call = audit?.events.find((e) => e.kind === 'tool_call' && e.tool === LONG_TOOL);
      const execution = call?.kind === 'tool_call' ? call.execution : undefined;
      return {
        chain: c.workflowId.slice(r.tag.length + 1),
        kills: hits.get(c.workflowId) ?? 0,
        'started again': execution?.lostWorkers ?? 0,
        attempts: execution?.attempts,
        call: execution?.status,
        outcome: c.stuck ? 'stuck' : (c.error ?? 'completed'),
      };
    }),
  );
}
