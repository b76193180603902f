/**
 * baton beside its floor in interleaved rounds: each round runs a few chains of every system in
 * turn, so a machine whose pace drifts (as a shared one does, by up to 50% within minutes) moves
 * every system of a round alike. Each ratio is the median over rounds of the ratio within a round.
 * The LangGraph peers take their turns too, each in a process of its own kept running
 * (bench/peerSession.ts), their chains timed by themselves.
 */
import { median, round, type WithBaton } from './lib';
import type { PeerSession } from './peerSession';
import { chainTeam } from './teams';

/** The peers that take turns in the rounds. */
export type InterleavedPeer = 'langgraph' | 'langgraphSqlite';

type System = InterleavedPeer | 'baton' | 'floor' | 'floorWrites' | 'batonLocal' | 'floorLocal' | 'floorLocalWrites';

/** Each ratio: baton's way of running over a floor's. */
const RATIOS = {
  batonOverFloor: ['baton', 'floor'],
  batonOverFloorWrites: ['baton', 'floorWrites'],
  batonLocalOverFloorLocal: ['batonLocal', 'floorLocal'],
  batonLocalOverFloorLocalWrites: ['batonLocal', 'floorLocalWrites'],
  batonLocalOverLangGraph: ['batonLocal', 'langgraph'],
  batonLocalOverLangGraphSqlite: ['batonLocal', 'langgraphSqlite'],
} as const satisfies Record<string, readonly [System, System]>;

/** A ratio is missing when one of its systems did not run (a peer that could not start). */
type Ratios = Partial<Record<keyof typeof RATIOS, number>>;

export interface InterleavedFigures {
  rounds: number;
  chainsPerRound: number;
  /** Median over rounds, ms a handoff. */
  msPerHandoff: Partial<Record<System, number>>;
  /** Median over rounds of the ratio within each round. */
  ratios: Ratios;
  /** The same ratios, round by round. */
  perRound: Ratios[];
}

/** The floor's chain: `steps` no-op activities, `modelCalls` of them with the model latency; local, and making a handoff's writes. */
export type FloorChain = (steps: number, modelCalls: number, local?: boolean, writes?: boolean) => Promise<unknown>;

/** baton (remote and local model calls), the floors of each and the peers given, chains of 10 handoffs, in interleaved rounds. */
export function measureInterleaved(
  withBaton: WithBaton,
  floorChain: FloorChain,
  options: { latency: number; rounds: number; chainsPerRound: number },
  peers: Partial<Record<InterleavedPeer, PeerSession>> = {},
): Promise<InterleavedFigures> {
  const handoffs = 10;
  const steps = 1 + (handoffs + 1);
  const floor = (local: boolean, writes: boolean) => () => floorChain(steps, handoffs + 1, local, writes);
  return withBaton(chainTeam(handoffs, options.latency), 'bench-interleaved', async (b) => {
    /** Each system runs n chains and says how long they took, ms. */
    const timed =
      (run: () => Promise<unknown>) =>
      async (n: number): Promise<number> => {
        const t = performance.now();
        for (let i = 0; i < n; i++) await run();
        return performance.now() - t;
      };
    const ofPeer = (p: PeerSession) => async (n: number) => (await p.chains(n)).reduce((a, b) => a + b, 0);
    const systems: Partial<Record<System, (n: number) => Promise<number>>> = {
      baton: timed(() => b.run('c0', 'go')),
      floor: timed(floor(false, false)),
      floorWrites: timed(floor(false, true)),
      batonLocal: timed(() => b.run('c0', 'go', { modelActivity: 'local' })),
      floorLocal: timed(floor(true, false)),
      floorLocalWrites: timed(floor(true, true)),
      ...(peers.langgraph ? { langgraph: ofPeer(peers.langgraph) } : {}),
      ...(peers.langgraphSqlite ? { langgraphSqlite: ofPeer(peers.langgraphSqlite) } : {}),
    };
    const runs = Object.entries(systems) as [System, (n: number) => Promise<number>][];
    for (const [, run] of runs) await run(1);
    const times = Object.fromEntries(runs.map(([name]) => [name, [] as number[]])) as Record<System, number[]>;
    for (let r = 0; r < options.rounds; r++)
      for (const [name, run] of runs)
        times[name].push((await run(options.chainsPerRound)) / options.chainsPerRound / handoffs);
    const present = Object.entries(RATIOS).filter(([, [ours, theirs]]) => times[ours] && times[theirs]);
    const ratiosOf = (pick: (t: number[]) => number) =>
      Object.fromEntries(
        present.map(([key, [ours, theirs]]) => [key, round(pick(times[ours]) / pick(times[theirs]))]),
      ) as Ratios;
    const perRound = times.baton.map((_, r) => ratiosOf((t) => t[r]!));
    return {
      rounds: options.rounds,
      chainsPerRound: options.chainsPerRound,
      msPerHandoff: Object.fromEntries(runs.map(([name]) => [name, round(median(times[name]))])),
      ratios: Object.fromEntries(
        present.map(([key]) => [key, round(median(perRound.map((p) => p[key as keyof Ratios]!)))]),
      ) as Ratios,
      perRound,
    };
  });
}

/** Each row of the table: its system, and the ratio of baton's matching way of running over it. */
const ROWS: [string, System, keyof typeof RATIOS | undefined][] = [
  ['baton (remote model calls)', 'baton', undefined],
  ['floor: 12 no-op activities', 'floor', 'batonOverFloor'],
  ["floor + a handoff's writes", 'floorWrites', 'batonOverFloorWrites'],
  ['baton, local model calls', 'batonLocal', undefined],
  ['floor: 12 no-op local activities', 'floorLocal', 'batonLocalOverFloorLocal'],
  ["floor local + a handoff's writes", 'floorLocalWrites', 'batonLocalOverFloorLocalWrites'],
  ['LangGraph swarm, MemorySaver (in-process)', 'langgraph', 'batonLocalOverLangGraph'],
  ['LangGraph swarm, SqliteSaver on a file (in-process)', 'langgraphSqlite', 'batonLocalOverLangGraphSqlite'],
];

/** The figures as table rows: each system with its ratio to baton's own way of running (remote or local; local for the peers). */
export function interleavedRows(f: InterleavedFigures): Record<string, string | number>[] {
  return ROWS.filter(([, system]) => f.msPerHandoff[system] !== undefined).map(([label, system, ratio]) => ({
    system: label,
    'ms/handoff': f.msPerHandoff[system]!,
    'baton over it': ratio ? f.ratios[ratio]! : 1,
  }));
}
