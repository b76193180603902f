/**
 * What a chain keeps of its economics in its state (chains started with the `baton-economics` patch).
 *
 * Workflow-safe: no I/O.
 */
import type { Usage } from '../usage';

/** The economics part of a chain's state; folded by the chain's reducer, carried by continue-as-new. */
export interface EconomicsState {
  /** The handoff edge of the activation working now: `from→to`, or `→agent` for the chain's first agent. */
  edge: string;
  /** Usage by handoff edge (see `HandoffRunResult.usageByEdge`). */
  usageByEdge: Record<string, Usage>;
  /** The specialists' usage by delegation edge. */
  usageByDelegation: Record<string, Usage>;
  /** A conversation's message: what the conversation spent before it and its `maxCost`, in micros. */
  conversation?: { spentMicros: number; limitMicros: number };
}

/** The edge key of a handoff (or, with `from` empty, of the chain's start). */
export function edgeKey(from: string, to: string): string {
  return `${from}→${to}`;
}
