/**
 * Workflow interceptors that add a span per handoff to a chain's trace, as a child of the
 * `RunWorkflow:handoffRun` span of `@temporalio/interceptors-opentelemetry`. Bundled into the
 * workflow sandbox after that package's interceptors (whose tracer exports through a sink Temporal
 * does not call while replaying, so a replayed handoff makes no second span). Workflow-safe imports only.
 */
import * as otel from '@opentelemetry/api';
import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { chainFacts } from './chainFacts';

/** The interceptors Temporal loads from this module: made once per workflow. */
export const interceptors: WorkflowInterceptorsFactory = () => {
  /** The workflow's own span context, captured inside the OpenTelemetry inbound interceptor. */
  let workflowContext: otel.Context | undefined;
  return {
    inbound: [
      {
        execute(input, next) {
          workflowContext = otel.context.active();
          return next(input);
        },
      },
    ],
    internals: [
      {
        concludeActivation(input, next) {
          for (const fact of chainFacts(input.commands)) {
            if (fact.kind !== 'handoff') continue;
            const tracer = otel.trace.getTracer('baton');
            const span = tracer.startSpan(
              `handoff ${fact.from} → ${fact.to}`,
              {
                attributes: {
                  'baton.handoff.from': fact.from,
                  'baton.handoff.to': fact.to,
                  'baton.handoff.index': fact.index,
                  'baton.handoff.turn': fact.turn,
                  ...(fact.approver ? { 'baton.approval.approver': fact.approver } : {}),
                },
              },
              workflowContext ?? otel.context.active(),
            );
            span.end();
          }
          return next(input);
        },
      },
    ],
  };
};
