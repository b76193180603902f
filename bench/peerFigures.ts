/**
 * The peers measured beside baton (bench/peers/: Temporal's OpenAI Agents integration on the same
 * server, a LangGraph swarm in-process): each run in a process of its own, and their figures as
 * results.json records them and as the tables show them beside baton's rows.
 */
import { median, percentile, round, runPeer, type LangGraphReport, type TemporalAgentsReport } from './lib';

/** A peer's figures in results.json; the ratios are filled in as baton's side is measured. */
export type PeerFigures = { perHandoffMs: number; batonOverPerHandoff?: number };
/** A peer's figures in one mode of running model calls. */
export type ModeFigures = PeerFigures & {
  eventsPerHandoff: number;
  throughput: { handoffsPerSecond: number; p50Ms: number; p95Ms: number; peakRssMb: number };
  batonOverThroughput?: number;
};

/** The rows the peers add to the handoff, throughput and history tables. */
export interface PeerRows {
  /** `local`: the peer's model calls run as local activities, so baton's own local figure is its match. */
  perHandoff: { system: string; ms: number; figures: PeerFigures; local?: boolean }[];
  throughput: { system: string; handoffsPerSecond: number; figures: ModeFigures; local?: boolean }[];
  history: Record<string, string | number>[];
}

/** How the peers run: repetitions, model latency (ms) and the chains of a burst, as baton's side runs. */
export interface PeerRuns {
  reps: number;
  latency: number;
  burstChains: number;
}

/** Runs the peers (bench/peers/), Temporal's integration against the dev server at `address`; a peer that cannot run is recorded as skipped. */
export async function measurePeers(
  address: string,
  { reps, latency, burstChains }: PeerRuns,
): Promise<PeerRows & { figures: Record<string, unknown> }> {
  const common = ['--reps', String(reps), '--latency', String(latency)];
  const agents = await runPeer<TemporalAgentsReport>(
    'temporal-openai-agents',
    [...common, '--chains', String(burstChains)],
    { TEMPORAL_ADDRESS: address },
  );
  const langgraph = await runPeer<LangGraphReport>('langgraph', common);
  const langgraphSqlite = await runPeer<LangGraphReport>('langgraph', [...common, '--saver', 'sqlite']);
  const rows: PeerRows = { perHandoff: [], throughput: [], history: [] };
  const figures = {
    temporalOpenAIAgents: 'report' in agents ? temporalAgentsFigures(agents.report, rows) : agents,
    langgraph: 'report' in langgraph ? langgraphFigures(langgraph.report, rows) : langgraph,
    langgraphSqlite: 'report' in langgraphSqlite ? langgraphFigures(langgraphSqlite.report, rows) : langgraphSqlite,
  };
  for (const [name, f] of Object.entries(figures))
    if ('skipped' in f) console.log(`\npeer ${name} skipped: ${f.skipped}`);
  return { ...rows, figures };
}

/** Temporal's OpenAI Agents integration, with model calls as activities (its default) and as local activities. */
function temporalAgentsFigures(r: TemporalAgentsReport, rows: PeerRows) {
  const modes = { activity: 'activities', localActivity: 'local activities' } as const;
  const figures: Record<string, unknown> = { versions: r.versions };
  for (const [mode, label] of Object.entries(modes) as [keyof typeof modes, string][]) {
    const m = r.modes[mode];
    const system = `Temporal OpenAI Agents integration (${label})`;
    const handoffsPerSecond = (r.chains * r.burstHandoffs) / (m.burst.totalMs / 1000);
    const f: ModeFigures = {
      perHandoffMs: round(median(m.chainMs) / r.handoffs),
      eventsPerHandoff: round(m.historyEvents / r.handoffs, 1),
      throughput: {
        handoffsPerSecond: round(handoffsPerSecond, 1),
        p50Ms: round(median(m.burst.latenciesMs)),
        p95Ms: round(percentile(m.burst.latenciesMs, 95)),
        peakRssMb: round(m.burst.peakRssMb, 0),
      },
    };
    figures[mode] = f;
    const local = mode === 'localActivity';
    rows.perHandoff.push({ system, ms: median(m.chainMs) / r.handoffs, figures: f, local });
    rows.throughput.push({ system: `${system}, own process`, handoffsPerSecond, figures: f, local });
    rows.history.push({ system, handoffs: r.handoffs, events: m.historyEvents, 'events/handoff': f.eventsPerHandoff });
  }
  return figures;
}

/** The LangGraph swarm in-process; it keeps checkpoints (in memory, or in a SQLite file) where Temporal keeps history events. */
function langgraphFigures(r: LangGraphReport, rows: PeerRows) {
  const f = {
    versions: r.versions,
    perHandoffMs: round(median(r.chainMs) / r.handoffs, 3),
    checkpointsPerHandoff: round(r.checkpoints / r.handoffs, 1),
  };
  const saver = r.saver === 'sqlite' ? 'SqliteSaver on a file' : 'MemorySaver';
  // In-process like baton's local model calls: compared with those.
  rows.perHandoff.push({
    system: `LangGraph swarm, in-process (${saver})`,
    ms: median(r.chainMs) / r.handoffs,
    figures: f,
    local: true,
  });
  rows.history.push({
    system: `LangGraph swarm: ${saver} checkpoints, not events`,
    handoffs: r.handoffs,
    events: r.checkpoints,
    'events/handoff': f.checkpointsPerHandoff,
  });
  return f;
}
