/**
 * What a chain spends: tokens, calls and their cost. Below the controls, the state and the run's
 * result, which all count it. Plain JSON; workflow-safe (no I/O).
 */
import type { Cost } from './economics/prices';

/** Tokens and calls spent by a run. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  modelCalls: number;
  toolCalls: number;
  /**
   * What the model calls cost at the prices of the chain's team snapshot (chains started with the
   * `baton-economics` patch); `unpricedCalls` above 0 means the cost is unknown.
   */
  cost?: Cost;
}
