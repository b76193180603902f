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

/** How often a question is sent again to a ledger handing over to its next run before giving up (the activity then retries). */
const HOPS = 50;

/** The activities of the shared economics, on the worker's client (made when first needed). */
export function economicsActivities(client: () => Client) {
  const taskQueue = () => Context.current().info.taskQueue;

  return {
    /** Reserve a call's worst case in a spend limit's ledger; waits while other chains' reservations hold what it needs. */
    async reserveSpend({ ledger, request }: ReserveSpendInput): Promise<ReserveAnswer> {
      const workflowId = ledgerId(ledger.name, ledger.key, ledger.windowStart);
      for (let hop = 0; hop < HOPS; hop++) {
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
          if (!('again' in answer)) return answer;
        } catch (err) {
          if (err instanceof WorkflowExecutionAlreadyStartedError) return { granted: true, spentMicros: 0, reservedMicros: 0, limitMicros: request.limitMicros };
          if (!runEnded(err)) throw err;
        }
        await Context.current().sleep(20 * (hop + 1));
      }
      throw ApplicationFailure.retryable(`the spend ledger ${workflowId} kept handing over to its next run`, 'LedgerBusy');
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
          if (!runEnded(err) || hop >= HOPS) throw err;
        }
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

/** Whether an update was taken by a run that ended (continued as new) before answering it: send it again. */
function runEnded(err: unknown): boolean {
  return err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure && err.cause.type === 'AcceptedUpdateCompletedWorkflow';
}
