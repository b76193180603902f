/**
 * baton beside its floor in interleaved rounds: each round runs a few chains of every system in
 * turn, so a machine whose pace drifts (as a shared one does, by up to 50% within minutes) moves
 * every system of a round alike. Each ratio is the median over rounds of the ratio within a round.
 */
import { median, round, type WithBaton } from './lib';
import { chainTeam } from './teams';

type System = 'baton' | 'floor' | 'floorWrites' | 'batonLocal' | 'floorLocal' | 'floorLocalWrites';

/** Each ratio: baton's way of running over a floor's. */
const RATIOS = {
  batonOverFloor: ['baton', 'floor'],
  batonOverFloorWrites: ['baton', 'floorWrites'],
  batonLocalOverFloorLocal: ['batonLocal', 'floorLocal'],
  batonLocalOverFloorLocalWrites: ['batonLocal', 'floorLocalWrites'],
} as const satisfies Record<string, readonly [System, System]>;

type Ratios = Record<keyof typeof RATIOS, number>;

export interface InterleavedFigures {
  rounds: number;
  chainsPerRound: number;
  /** Median over rounds, ms a handoff. */
  msPerHandoff: Record<System, number>;
  /** Median over rounds of the ratio within each round. */
  ratios: Ratios;
  /** The same ratios, round by round. */
  perRound: Ratios[];
}

/** The floor's chain: `steps` no-op activities, `modelCalls` of them with the model latency; local, and making a handoff's writes. */
export type FloorChain = (steps: number, modelCalls: number, local?: boolean, writes?: boolean) => Promise<unknown>;

/** baton (remote and local model calls) and the floors of each, chains of 10 handoffs, in interleaved rounds. */
export function measureInterleaved(
  withBaton: WithBaton,
  floorChain: FloorChain,
  options: { latency: number; rounds: number; chainsPerRound: number },
): Promise<InterleavedFigures> {
  const handoffs = 10;
  const steps = 1 + (handoffs + 1);
  const floor = (local: boolean, writes: boolean) => () => floorChain(steps, handoffs + 1, local, writes);
  return withBaton(chainTeam(handoffs, options.latency), 'bench-interleaved', async (b) => {
    const systems: Record<System, () => Promise<unknown>> = {
      baton: () => b.run('c0', 'go'),
      floor: floor(false, false),
      floorWrites: floor(false, true),
      batonLocal: () => b.run('c0', 'go', { modelActivity: 'local' }),
      floorLocal: floor(true, false),
      floorLocalWrites: floor(true, true),
    };
    const runs = Object.entries(systems) as [System, () => Promise<unknown>][];
    for (const [, run] of runs) await run();
    const times = Object.fromEntries(runs.map(([name]) => [name, [] as number[]])) as Record<System, number[]>;
    for (let r = 0; r < options.rounds; r++) {
      for (const [name, run] of runs) {
        const t = performance.now();
        for (let i = 0; i < options.chainsPerRound; i++) await run();
        times[name].push((performance.now() - t) / options.chainsPerRound / handoffs);
      }
    }
    const ratiosOf = (pick: (t: number[]) => number) =>
      Object.fromEntries(
        Object.entries(RATIOS).map(([key, [ours, theirs]]) => [key, round(pick(times[ours]) / pick(times[theirs]))]),
      ) as Ratios;
    const perRound = times.baton.map((_, r) => ratiosOf((t) => t[r]!));
    return {
      rounds: options.rounds,
      chainsPerRound: options.chainsPerRound,
      msPerHandoff: Object.fromEntries(runs.map(([name]) => [name, round(median(times[name]))])) as Record<
        System,
        number
      >,
      ratios: Object.fromEntries(
        Object.keys(RATIOS).map((key) => [key, round(median(perRound.map((p) => p[key as keyof Ratios])))]),
      ) as Ratios,
      perRound,
    };
  });
}

/** The figures as table rows: each system with its ratio to baton's own way of running (remote or local). */
export function interleavedRows(f: InterleavedFigures): Record<string, string | number>[] {
  const m = f.msPerHandoff;
  return [
    { system: 'baton (remote model calls)', 'ms/handoff': m.baton, 'baton over it': 1 },
    { system: 'floor: 12 no-op activities', 'ms/handoff': m.floor, 'baton over it': f.ratios.batonOverFloor },
    {
      system: "floor + a handoff's writes",
      'ms/handoff': m.floorWrites,
      'baton over it': f.ratios.batonOverFloorWrites,
    },
    { system: 'baton, local model calls', 'ms/handoff': m.batonLocal, 'baton over it': 1 },
    {
      system: 'floor: 12 no-op local activities',
      'ms/handoff': m.floorLocal,
      'baton over it': f.ratios.batonLocalOverFloorLocal,
    },
    {
      system: "floor local + a handoff's writes",
      'ms/handoff': m.floorLocalWrites,
      'baton over it': f.ratios.batonLocalOverFloorLocalWrites,
    },
  ];
}
