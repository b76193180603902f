/**
 * History cost as run.ts prints it: events per handoff (remote and local model calls) and bytes per
 * model turn as a conversation grows (bench/history.ts measures those), or only baton's events per
 * handoff when the run measures the peers and not the history part.
 */
import { historyCost } from '../history';
import { round } from '../lib';
import { chainTeam } from '../teams';
import { print, type BenchContext } from './context';

/** Measures and prints the history cost; resolves to the figures results.json records as `history`. */
export async function historyPart(ctx: BenchContext) {
  const { env, withBaton, quick, peers } = ctx;
  const cost = await historyCost(env, withBaton, quick);
  const handoffs = 10;
  const localEvents = await withBaton(chainTeam(handoffs, 0), 'bench-history-local', async (b) => {
    const { workflowId } = await b.run('c0', 'go', { modelActivity: 'local' });
    return (await b.getRun(workflowId).handle.fetchHistory()).events?.length ?? 0;
  });
  const local = { handoffs, events: localEvents, 'events/handoff': round(localEvents / handoffs, 1) };
  print('History: events per handoff', [
    { system: 'baton', ...cost.eventsPerHandoff },
    { system: 'baton, local model calls', ...local },
    ...(peers?.history ?? []),
  ]);
  print('History bytes per model turn (callModel input + answer), ~200-token messages', cost.bytesPerTurn);
  return { ...cost, eventsPerHandoffLocal: local };
}

/** Only baton's events per handoff, for the peers' rows: historyCost's long conversations are not needed. */
export async function peersHistoryPart(ctx: BenchContext) {
  const handoffs = 10;
  const events = await ctx.withBaton(chainTeam(handoffs, 0), 'bench-history-chain', async (b) => {
    const { workflowId } = await b.run('c0', 'go');
    return (await b.getRun(workflowId).handle.fetchHistory()).events?.length ?? 0;
  });
  print('History: events per handoff', [
    { system: 'baton', handoffs, events, 'events/handoff': round(events / handoffs, 1) },
    ...(ctx.peers?.history ?? []),
  ]);
  return { eventsPerHandoff: { handoffs, events, 'events/handoff': round(events / handoffs, 1) } };
}
