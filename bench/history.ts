import { Client, Connection } from '@temporalio/client';
import type { DevServer } from '../src/devserver/server';
import type { temporal } from '@temporalio/proto';
import type { HistoryEvent } from '../src/payloads/read';
import { round, type WithBaton } from './lib';
import { chainTeam, conversationTeam } from './teams';

const payloadBytes = (p: temporal.api.common.v1.IPayloads | null | undefined) =>
  (p?.payloads ?? []).reduce(
    (n, x) => n + (x.data?.length ?? 0) + Object.values(x.metadata ?? {}).reduce((m, v) => m + v.length, 0),
    0,
  );

/** Every run's events of a chain, oldest run first; a connection of its own, sized for large history pages. */
async function allEvents(env: DevServer, workflowId: string): Promise<HistoryEvent[][]> {
  const connection = await Connection.connect({
    address: env.address,
    channelArgs: { 'grpc.max_receive_message_length': 256 * 2 ** 20 },
  });
  try {
    const client = new Client({ connection });
    const runs: string[] = [];
    for await (const wf of client.workflow.list({ query: `WorkflowId = "${workflowId}"` })) runs.unshift(wf.runId);
    const all: HistoryEvent[][] = [];
    for (const runId of runs)
      all.push((await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? []);
    return all;
  } finally {
    await connection.close();
  }
}

/** History bytes of each model turn: the callModel input and its answer, in turn order across runs. */
function bytesByTurn(runs: HistoryEvent[][]): number[] {
  const turns: number[] = [];
  for (const events of runs) {
    const scheduled = new Map<string, number>();
    for (const e of events) {
      const s = e.activityTaskScheduledEventAttributes;
      if (s?.activityType?.name === 'callModel') {
        scheduled.set(String(e.eventId), turns.length);
        turns.push(payloadBytes(s.input));
      }
      const c = e.activityTaskCompletedEventAttributes;
      const turn = c ? scheduled.get(String(c.scheduledEventId)) : undefined;
      if (c && turn !== undefined) turns[turn]! += payloadBytes(c.result);
    }
  }
  return turns;
}

export async function historyCost(env: DevServer, withBaton: WithBaton, quick: boolean) {
  const handoffs = 10;
  const chainEvents = await withBaton(chainTeam(handoffs, 0), 'bench-history-chain', async (b) => {
    const { workflowId } = await b.run('c0', 'go');
    return (await b.getRun(workflowId).handle.fetchHistory()).events?.length ?? 0;
  });
  const turns = quick ? 100 : 1000;
  const checkpoints = [10, 100, 1000].filter((t) => t <= turns);
  const measure = async (compress: boolean) =>
    withBaton(
      conversationTeam(),
      `bench-history-${compress ? 'gzip' : 'plain'}`,
      async (b) => {
        const t = performance.now();
        // The chain ends with MaxTurnsExceededError after `turns` model turns: the conversation is what counts.
        const run = await b.start('talker', 'Read the notes.', { maxTurns: turns });
        await run.result().catch(() => undefined);
        const seconds = (performance.now() - t) / 1000;
        const runs = await allEvents(env, run.workflowId);
        const perTurn = bytesByTurn(runs);
        const runBytes = runs.map((events) => events.reduce((n, e) => n + JSON.stringify(e).length, 0));
        return {
          perTurn,
          runs: runs.length,
          largestRunMb: round(Math.max(...runBytes) / 2 ** 20, 1),
          seconds: round(seconds, 1),
        };
      },
      { compress },
    );
  const plain = await measure(false);
  const gzip = await measure(true);
  return {
    eventsPerHandoff: { handoffs, events: chainEvents, 'events/handoff': round(chainEvents / handoffs, 1) },
    bytesPerTurn: checkpoints.map((turn) => ({
      turn,
      'bytes (plain)': plain.perTurn[turn - 1] ?? NaN,
      'bytes (gzip codec)': gzip.perTurn[turn - 1] ?? NaN,
      'gzip/plain': round((gzip.perTurn[turn - 1] ?? NaN) / (plain.perTurn[turn - 1] ?? NaN), 3),
    })),
    conversation: {
      turns,
      plain: { runs: plain.runs, largestRunMb: plain.largestRunMb, seconds: plain.seconds },
      gzip: { runs: gzip.runs, largestRunMb: gzip.largestRunMb, seconds: gzip.seconds },
    },
  };
}
