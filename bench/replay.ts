import type { DevServer } from '../src/devserver/server';
import { bundleWorkflowCode, DefaultLogger, Worker } from '@temporalio/worker';
import { checkHistories } from '../src/worker/determinism';
import { median, round, timeRuns, type WithBaton } from './lib';
import { chainTeam } from './teams';

/** Time a determinism check of a ~1,000-event chain history beside a ~1,000-event floor history. */
export async function replayCost(
  env: DevServer,
  withBaton: WithBaton,
  floorChain: (steps: number, modelCalls: number) => Promise<unknown>,
  reps: number,
) {
  const handoffs = 120;
  const history = await withBaton(chainTeam(handoffs, 0), 'bench-replay', async (b) => {
    const { workflowId } = await b.run('c0', 'go', { maxHandoffs: handoffs });
    return b.getRun(workflowId).handle.fetchHistory();
  });
  const batonTimes = await timeRuns(reps, () => checkHistories([{ source: 'bench', history }]).then(assertOk));

  const steps = 166;
  const floorId = `floor-replay-${Date.now()}`;
  await env.client.workflow.execute('noopChain', {
    taskQueue: 'bench-floor',
    workflowId: floorId,
    args: [{ steps, latencyMs: [] }],
  });
  const floorHistory = await env.client.workflow.getHandle(floorId).fetchHistory();
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('./floor/workflows'),
    logger: new DefaultLogger('WARN'),
  });
  const floorReplay = async () => {
    for await (const r of Worker.runReplayHistories({ workflowBundle }, [
      { workflowId: floorId, history: floorHistory },
    ])) {
      if (r.error) throw r.error;
    }
  };
  const floorTimes = await timeRuns(reps, floorReplay);
  const batonEvents = history.events?.length ?? 0;
  const floorEvents = floorHistory.events?.length ?? 0;
  return {
    batonEvents,
    batonMs: round(median(batonTimes)),
    batonMsPer1000: round((median(batonTimes) * 1000) / batonEvents),
    floorEvents,
    floorMs: round(median(floorTimes)),
    floorMsPer1000: round((median(floorTimes) * 1000) / floorEvents),
  };
}

function assertOk(results: { ok: boolean; error?: string }[]): void {
  const bad = results.find((r) => !r.ok);
  if (bad) throw new Error(`replay failed: ${bad.error}`);
}
