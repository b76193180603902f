/**
 * What each part of bench/run.ts is given: the dev server, the run's settings, the ways to run a
 * chain on baton and on its floor, and the peers' rows its tables carry; and how a part prints a table.
 */
import type { DevServer } from '../../src/devserver/server';
import type { FloorChain } from '../interleaved';
import { table, type WithBaton } from '../lib';
import type { PeerRows } from '../peerFigures';

/** The dev server, settings and runners every benchmark part measures with. */
export interface BenchContext {
  env: DevServer;
  /** Model latency in ms, on every model call after the first step. */
  latency: number;
  /** Repetitions of each timed run. */
  reps: number;
  /** `--quick`: a smaller run. */
  quick: boolean;
  /** The chains a throughput burst starts at once. */
  burstChains: number;
  /** Whether `--only` selects the part `name` (every part when it is not given). */
  selected: (name: string) => boolean;
  withBaton: WithBaton;
  floorChain: FloorChain;
  /** The peers' rows, when they were measured; the parts add baton's ratios to their figures. */
  peers?: PeerRows;
}

/** Prints `rows` as a table under `title`. */
export function print(title: string, rows: Record<string, string | number>[]): void {
  console.log(`\n${title}\n${table(rows)}`);
}
