/**
 * How runs and child chains end, as history records it. (No value import of Temporal's protos
 * here: run events read it too, and the CLI starts faster without them.)
 */
import type { HandoffRunResult } from '../common/run';
import { fromPayloads, type HistoryEvent } from '../payloads/read';
import type { AuditChain, AuditEvent, AuditStatus } from './types';

type DelegationOutcome = Extract<AuditEvent, { kind: 'delegation' }>['outcome'];

/** How a child chain ended, as an event records it: its initiating event, the outcome, and its answer or error. */
export function childEnd(
  e: HistoryEvent,
): { initiatedId: string; outcome: DelegationOutcome; output?: unknown; error?: string } | undefined {
  const done = e.childWorkflowExecutionCompletedEventAttributes;
  if (done)
    return {
      initiatedId: String(done.initiatedEventId),
      outcome: 'completed',
      output: fromPayloads<HandoffRunResult<unknown>>(done.result)?.output,
    };
  const failed = e.childWorkflowExecutionFailedEventAttributes;
  if (failed)
    return {
      initiatedId: String(failed.initiatedEventId),
      outcome: 'failed',
      error: failed.failure?.cause?.message ?? failed.failure?.message ?? 'failed',
    };
  const timedOut = e.childWorkflowExecutionTimedOutEventAttributes;
  if (timedOut) return { initiatedId: String(timedOut.initiatedEventId), outcome: 'timed_out', error: 'timed out' };
  const cancelled = e.childWorkflowExecutionCanceledEventAttributes;
  if (cancelled) return { initiatedId: String(cancelled.initiatedEventId), outcome: 'cancelled', error: 'cancelled' };
  const terminated = e.childWorkflowExecutionTerminatedEventAttributes;
  if (terminated)
    return { initiatedId: String(terminated.initiatedEventId), outcome: 'terminated', error: 'terminated' };
  const notStarted = e.startChildWorkflowExecutionFailedEventAttributes;
  if (notStarted)
    return {
      initiatedId: String(notStarted.initiatedEventId),
      outcome: 'failed',
      error: `the chain did not start (${String(notStarted.cause ?? 'failed')})`,
    };
  return undefined;
}

/** How a run closed, as an event records it: the chain's status and the event that says so; `undefined` when `e` does not close the run. */
export function runEnd(e: HistoryEvent):
  | {
      status: AuditStatus;
      event?: Record<string, unknown> & { kind: string };
      result?: AuditChain['result'];
      failure?: AuditChain['failure'];
    }
  | undefined {
  if (e.workflowExecutionCompletedEventAttributes) {
    const result = fromPayloads<NonNullable<AuditChain['result']>>(e.workflowExecutionCompletedEventAttributes.result);
    return result
      ? {
          status: 'completed',
          event: { kind: 'final_answer', agent: result.finalAgent, output: result.output },
          result,
        }
      : { status: 'completed' };
  }
  if (e.workflowExecutionFailedEventAttributes) {
    const f = e.workflowExecutionFailedEventAttributes.failure;
    const failure = { type: f?.applicationFailureInfo?.type ?? undefined, message: f?.message ?? 'failed' };
    return { status: 'failed', event: { kind: 'failed', ...failure }, failure };
  }
  if (e.workflowExecutionCanceledEventAttributes) return { status: 'cancelled', event: { kind: 'cancelled' } };
  if (e.workflowExecutionTerminatedEventAttributes)
    return {
      status: 'terminated',
      event: { kind: 'terminated', reason: e.workflowExecutionTerminatedEventAttributes.reason ?? undefined },
    };
  if (e.workflowExecutionTimedOutEventAttributes) return { status: 'timed_out', event: { kind: 'timed_out' } };
  if (e.workflowExecutionContinuedAsNewEventAttributes)
    return { status: 'continued_as_new', event: { kind: 'continued_as_new' } };
  return undefined;
}
