/**
 * baton beside its floor in interleaved rounds: each round runs a few chains of every system in
 * turn, so a machine whose pace drifts (as a shared one does, by up to 50% within minutes) moves
 * every system of a round alike. Each ratio is the median over rounds of the ratio within a round.
 */
import type { Baton } from '../src/client/baton';
import { median, round, type WithBaton } from './lib';
import { chainTeam } from './teams';

/** The systems measured, each a way to run one chain of `handoffs` handoffs. */
export interface InterleavedSystems {
  baton: (b: Baton) => Promise<unknown>;
  batonLocal: (b: Baton) => Promise<unknown>;
  floor: () => Promise<unknown>;
  floorLocal: () => Promise<unknown>;
  floorWrites: () => Promise<unknown>;
  floorLocalWrites: () => Promise<unknown>;
}

export interface InterleavedFigures {
  rounds: number;
  chainsPerRound: number;
  /** Median over rounds, ms a handoff. */
  msPerHandoff: Record<keyof InterleavedSystems, number>;
  /** Median over rounds of the ratio within each round. */
  ratios: { batonOverFloor: number; batonOverFloorWrites: number; batonLocalOverFloorLocal: number; batonLocalOverFloorLocalWrites: number };
  /** The same ratios, round by round. */
  perRound: InterleavedFigures['ratios'][];
}

export async function interleaved(baton: Baton, systems: InterleavedSystems, options: { handoffs: number; rounds: number; chainsPerRound: number }): Promise<InterleavedFigures> {
  const runs: [keyof InterleavedSystems, () => Promise<unknown>][] = [
    ['baton', () => systems.baton(baton)],
    ['floor', systems.floor],
    ['floorWrites', systems.floorWrites],
    ['batonLocal', () => systems.batonLocal(baton)],
    ['floorLocal', systems.floorLocal],
    ['floorLocalWrites', systems.floorLocalWrites],
  ];
  for (const [, run] of runs) await run();
  const times = Object.fromEntries(runs.map(([name]) => [name, [] as number[]])) as Record<keyof InterleavedSystems, number[]>;
  for (let r = 0; r < options.rounds; r++) {
    for (const [name, run] of runs) {
      const t = performance.now();
      for (let i = 0; i < options.chainsPerRound; i++) await run();
      times[name].push((performance.now() - t) / options.chainsPerRound / options.handoffs);
    }
  }
  const perRound = times.baton.map((_, r) => ({
    batonOverFloor: round(times.baton[r]! / times.floor[r]!),
    batonOverFloorWrites: round(times.baton[r]! / times.floorWrites[r]!),
    batonLocalOverFloorLocal: round(times.batonLocal[r]! / times.floorLocal[r]!),
    batonLocalOverFloorLocalWrites: round(times.batonLocal[r]! / times.floorLocalWrites[r]!),
  }));
  const ratio = (key: keyof InterleavedFigures['ratios']) => round(median(perRound.map((p) => p[key])));
  return {
    rounds: options.rounds,
    chainsPerRound: options.chainsPerRound,
    msPerHandoff: Object.fromEntries(Object.entries(times).map(([name, t]) => [name, round(median(t))])) as InterleavedFigures['msPerHandoff'],
    ratios: { batonOverFloor: ratio('batonOverFloor'), batonOverFloorWrites: ratio('batonOverFloorWrites'), batonLocalOverFloorLocal: ratio('batonLocalOverFloorLocal'), batonLocalOverFloorLocalWrites: ratio('batonLocalOverFloorLocalWrites') },
    perRound,
  };
}

/** The floor's chain: `steps` no-op activities, `modelCalls` of them with the model latency; local, and making a handoff's writes. */
export type FloorChain = (steps: number, modelCalls: number, local?: boolean, writes?: boolean) => Promise<unknown>;

/** baton (remote and local model calls) and the floors of each, chains of 10 handoffs, in interleaved rounds. */
export function measureInterleaved(withBaton: WithBaton, floorChain: FloorChain, options: { latency: number; rounds: number; chainsPerRound: number }): Promise<InterleavedFigures> {
  const handoffs = 10;
  const steps = 1 + (handoffs + 1);
  const floor = (local: boolean, writes: boolean) => () => floorChain(steps, handoffs + 1, local, writes);
  const systems: InterleavedSystems = {
    baton: (b) => b.run('c0', 'go'),
    batonLocal: (b) => b.run('c0', 'go', { modelActivity: 'local' }),
    floor: floor(false, false),
    floorLocal: floor(true, false),
    floorWrites: floor(false, true),
    floorLocalWrites: floor(true, true),
  };
  return withBaton(chainTeam(handoffs, options.latency), 'bench-interleaved', (b) => interleaved(b, systems, { handoffs, rounds: options.rounds, chainsPerRound: options.chainsPerRound }));
}

/** The figures as table rows: each system with its ratio to baton's own way of running (remote or local). */
export function interleavedRows(f: InterleavedFigures): Record<string, string | number>[] {
  const m = f.msPerHandoff;
  return [
    { system: 'baton (remote model calls)', 'ms/handoff': m.baton, 'baton over it': 1 },
    { system: 'floor: 12 no-op activities', 'ms/handoff': m.floor, 'baton over it': f.ratios.batonOverFloor },
    { system: "floor + a handoff's writes", 'ms/handoff': m.floorWrites, 'baton over it': f.ratios.batonOverFloorWrites },
    { system: 'baton, local model calls', 'ms/handoff': m.batonLocal, 'baton over it': 1 },
    { system: 'floor: 12 no-op local activities', 'ms/handoff': m.floorLocal, 'baton over it': f.ratios.batonLocalOverFloorLocal },
    { system: "floor local + a handoff's writes", 'ms/handoff': m.floorLocalWrites, 'baton over it': f.ratios.batonLocalOverFloorLocalWrites },
  ];
}
