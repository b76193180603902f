/**
 * Workflow interceptors that report a chain's handoffs, approvals and end to the worker's metrics.
 * Bundled into the workflow sandbox (`workflowInterceptorModules`): workflow-safe imports only.
 * The facts travel through a sink that Temporal does not call while replaying history, so a
 * replayed chain is not counted twice.
 */
import { proxySinks, type Sinks, type WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { anyActions, commandActions, jobActions } from './actionFacts';
import { chainFacts, type ChainFact } from './chainFacts';

/** The sink this module calls; the worker's metrics provide it. */
export interface BatonMetricsSinks extends Sinks {
  batonMetrics: {
    /** What one workflow activation did. */
    record(facts: ChainFact[]): void;
  };
}

const { batonMetrics } = proxySinks<BatonMetricsSinks>();

/** The interceptors Temporal loads from this module. */
export const interceptors: WorkflowInterceptorsFactory = () => ({
  internals: [
    {
      activate(input, next) {
        // A replayed activation's jobs were counted when they first ran.
        const counts = input.activation.isReplaying ? {} : jobActions(input.activation);
        if (anyActions(counts)) batonMetrics.record([{ kind: 'actions', counts }]);
        return next(input);
      },
      concludeActivation(input, next) {
        const counts = commandActions(input.commands);
        const facts = [
          ...chainFacts(input.commands),
          ...(anyActions(counts) ? [{ kind: 'actions' as const, counts }] : []),
        ];
        if (facts.length > 0) batonMetrics.record(facts);
        return next(input);
      },
    },
  ],
});
