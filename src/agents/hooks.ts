/** Lifecycle hooks a worker runs for the chains it serves. */
import type { HandoffRecord } from '../common/run';
import type { Agent } from './agent';

/** Where a handoff hook runs. */
export interface HandoffHookContext {
  workflowId: string;
  runId: string;
  taskQueue: string;
  /** 1 on the first attempt; hooks run at least once, so a retry calls them again. */
  attempt: number;
  /** 1-based position of the handoff in the chain. */
  index: number;
}

/** Called after each handoff, in the worker, inside the `runHandoffHooks` activity (at least once). */
export type AgentHandoffListener = (context: HandoffHookContext, agent: Agent, handoff: HandoffRecord) => unknown;

/** Lifecycle hooks a worker runs. */
export interface BatonHooks {
  agent_handoff?: AgentHandoffListener[];
}
