/**
 * What this worker's chains cost on Temporal Cloud, in actions (`baton_temporal_actions_total`, by
 * kind): what their workflow activations caused (a start, signals, queries, accepted updates,
 * timers, search-attribute upserts, workflow tasks with local activities; reported by the workflow
 * through the metrics sink, never while replaying) and what its activities did (each attempt, each
 * heartbeat sent). A count from the worker's side: bench/actions.ts checks it against what the
 * server records.
 */
import { Counter, type Registry } from 'prom-client';
import type { ActionCounts, ActionKind } from '../../../workflows/telemetry/actionFacts';

/** The actions counter of one registry. */
export class ActionMetrics {
  readonly actions: Counter<'kind'>;

  constructor(registry: Registry) {
    this.actions = new Counter({
      name: 'baton_temporal_actions_total',
      help: "Temporal Cloud actions this worker's chains caused, by kind (start, signal, query, update, timer, search_attributes, local_activities, activity_attempt, heartbeat: sent by a call; Temporal may fold heartbeats sent close together into one)",
      labelNames: ['kind'],
      registers: [registry],
    });
  }

  /** What one workflow activation caused. */
  record(counts: ActionCounts): void {
    for (const [kind, n] of Object.entries(counts)) if (n) this.actions.inc({ kind }, n);
  }

  /** One action of `kind` (an activity attempt, a heartbeat). */
  one(kind: ActionKind): void {
    this.actions.inc({ kind });
  }
}
