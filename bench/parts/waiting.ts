/**
 * Worker memory with chains waiting for approval: the RSS that many chains waiting add to the
 * process, beside the floor's workflows waiting on a signal.
 */
import { round } from '../lib';
import { approvalTeam } from '../teams';
import { print, type BenchContext } from './context';

/** Measures and prints the memory of waiting chains; resolves to the figures results.json records as `waiting`. */
export async function waitingPart(ctx: BenchContext) {
  const { env, withBaton } = ctx;
  const count = ctx.quick ? 200 : 1000;
  const batonWait = await withBaton(approvalTeam(), 'bench-wait', async (baton) => {
    const ids: string[] = [];
    return measureWaiting(
      count,
      async () => ids.push((await baton.start('a', 'go')).workflowId),
      async () =>
        (await env.client.workflow.count(`TaskQueue = "bench-wait" AND BatonStatus = "awaiting_approval"`)).count,
      () => Promise.all(ids.map((id) => env.client.workflow.getHandle(id).terminate('benchmark done'))),
    );
  });
  const floorIds: string[] = [];
  const floorWait = await measureWaiting(
    count,
    async (i) =>
      floorIds.push(
        (
          await env.client.workflow.start('waitForSignal', {
            taskQueue: 'bench-floor',
            workflowId: `floor-wait-${i}-${Date.now()}`,
          })
        ).workflowId,
      ),
    async () =>
      (
        await env.client.workflow.count(
          `TaskQueue = "bench-floor" AND BatonStatus = "awaiting_approval" AND ExecutionStatus = "Running"`,
        )
      ).count,
    () => Promise.all(floorIds.map((id) => env.client.workflow.getHandle(id).signal('release'))),
  );
  print(`Worker memory with ${count} chains waiting for approval (RSS MB of the worker process)`, [
    { system: 'baton', ...batonWait },
    { system: 'floor: workflows waiting on a signal', ...floorWait },
  ]);
  return {
    chains: count,
    baton: batonWait,
    floor: floorWait,
    batonOverFloorPerChain: round(batonWait.perChainKb / Math.max(0.1, floorWait.perChainKb)),
  };
}

/** The RSS before and after `count` workflows are started (50 at a time) and all wait, then released. */
async function measureWaiting(
  count: number,
  start: (i: number) => Promise<unknown>,
  waiting: () => Promise<number>,
  release: () => Promise<unknown>,
) {
  global.gc?.();
  const before = process.memoryUsage().rss / 2 ** 20;
  for (let i = 0; i < count; i += 50)
    await Promise.all(Array.from({ length: Math.min(50, count - i) }, (_, j) => start(i + j)));
  while ((await waiting()) < count) await new Promise((r) => setTimeout(r, 250));
  global.gc?.();
  const after = process.memoryUsage().rss / 2 ** 20;
  await release();
  return {
    beforeMb: round(before, 0),
    afterMb: round(after, 0),
    perChainKb: round(((after - before) * 1024) / count, 1),
  };
}
