/**
 * The activities that reach what chains share: a spend limit's ledger and a target's shared
 * circuit breaker, each a long-running workflow of its own. Questions are updates sent with
 * update-with-start (the workflow starts on the first one); news are signals sent with
 * signal-with-start. They run as local activities, so a chain pays one round trip to the ledger or
 * breaker, not one more through the task queue.
 */
import { Context } from '@temporalio/activity';
import { type Client, WithStartWorkflowOperation, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure, WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import {
  type AskBreaker,
  askBreakerUpdate,
  type BreakerAnswer,
  type BreakerCallInput,
  type BreakerReport,
  EconomicsWorkflow,
  reportBreakerSignal,
  type ReserveAnswer,
  type ReserveSpendInput,
  reserveSpendUpdate,
  type SettleSpendInput,
  settleSpendSignal,
} from '../src/common/economics/messages';
import { breakerId, ledgerId } from '../src/common/economics/spec';

/** How often a question is sent again to a breaker handing over to its next run before giving up (the activity then retries). */
const HOPS = 50;

/** The pause before asking a ledger again: from 25 ms, growing to at most a second, jittered so waiting chains do not ask in step. */
function pause(attempt: number): number {
  const ms = Math.min(1000, 25 * 1.5 ** attempt);
  return Math.round(ms / 2 + Math.random() * (ms / 2));
}

/** The activities of the shared economics, on the worker's client (made when first needed). */
export function economicsActivities(client: () => Client) {
  const taskQueue = () => Context.current().info.taskQueue;

  return {
    /**
     * Reserve a call's worst case in a spend limit's ledger, asking again while other chains'
     * reservations hold what it needs (or the ledger is busy or handing over), until it is granted or
     * refused or the activity's time runs out.
     */
    async reserveSpend({ ledger, request }: ReserveSpendInput): Promise<ReserveAnswer> {
      const workflowId = ledgerId(ledger.name, ledger.key, ledger.windowStart);
      for (let attempt = 0; ; attempt++) {
        const start = new WithStartWorkflowOperation(EconomicsWorkflow.SPEND_LEDGER, {
          workflowId,
          taskQueue: taskQueue(),
          args: [ledger],
          workflowIdConflictPolicy: 'USE_EXISTING',
          // A ledger that closed keeps its totals: its window is over, and nothing is started in its place.
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
        });
        try {
          const answer = await client().workflow.executeUpdateWithStart(reserveSpendUpdate, { args: [request], startWorkflowOperation: start });
          if ('granted' in answer) return answer;
        } catch (err) {
          if (err instanceof WorkflowExecutionAlreadyStartedError) return { granted: true, spentMicros: 0, reservedMicros: 0, limitMicros: request.limitMicros };
          if (!runEnded(err) && !busy(err)) throw err;
        }
        await Context.current().sleep(pause(attempt));
      }
    },

    /** Tell a ledger what a call cost; a ledger whose window closed is left as it is. */
    async settleSpend({ ledger, settle }: SettleSpendInput): Promise<void> {
      try {
        await client().workflow.signalWithStart(EconomicsWorkflow.SPEND_LEDGER, {
          workflowId: ledgerId(ledger.name, ledger.key, ledger.windowStart),
          taskQueue: taskQueue(),
          args: [ledger],
          signal: settleSpendSignal,
          signalArgs: [settle],
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
        });
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      }
    },

    /** Ask a shared breaker whether the chain may go to its target. */
    async askBreaker({ breaker, message }: BreakerCallInput<AskBreaker>): Promise<BreakerAnswer> {
      for (let hop = 0; ; hop++) {
        const start = new WithStartWorkflowOperation(EconomicsWorkflow.CIRCUIT_BREAKER, {
          workflowId: breakerId(breaker.scope, breaker.target),
          taskQueue: taskQueue(),
          args: [breaker],
          workflowIdConflictPolicy: 'USE_EXISTING',
        });
        try {
          return await client().workflow.executeUpdateWithStart(askBreakerUpdate, { args: [message], startWorkflowOperation: start });
        } catch (err) {
          if ((!runEnded(err) && !busy(err)) || hop >= HOPS) throw err;
        }
        await Context.current().sleep(pause(hop));
      }
    },

    /** Tell a shared breaker of a failure or success of its target. */
    async reportToBreaker({ breaker, message }: BreakerCallInput<BreakerReport>): Promise<void> {
      await client().workflow.signalWithStart(EconomicsWorkflow.CIRCUIT_BREAKER, {
        workflowId: breakerId(breaker.scope, breaker.target),
        taskQueue: taskQueue(),
        args: [breaker],
        signal: reportBreakerSignal,
        signalArgs: [message],
      });
    },
  };
}

/** Whether the server refused the update for the workflow's updates in flight (RESOURCE_EXHAUSTED): ask again shortly. */
function busy(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === 8 || /resource ?exhausted|in-flight|too many/i.test(e.message)) return true;
  }
  return false;
}

/** Whether an update was taken by a run that ended (continued as new) before answering it: send it again. */
function runEnded(err: unknown): boolean {
  return err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure && err.cause.type === 'AcceptedUpdateCompletedWorkflow';
}
