/**
 * The activities that reach what chains share: a spend limit's ledger and a target's shared
 * circuit breaker, each a long-running workflow of its own. Questions are updates sent with
 * update-with-start (the workflow starts on the first one); news are signals sent with
 * signal-with-start. News run as local activities, so a chain pays one round trip, not one more
 * through the task queue; questions as activities (local ones in runs from before), since they wait
 * for the ledger's or breaker's own workflow task, and a chain's workflow task held meanwhile would
 * keep a worker slot from it.
 */
import { Context } from '@temporalio/activity';
import { type Client, WithStartWorkflowOperation, WorkflowUpdateFailedError } from '@temporalio/client';
import type { UpdateDefinition, Workflow } from '@temporalio/common';
import { ApplicationFailure, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/common';
import {
  type AskBreaker,
  askBreakerBatchUpdate,
  askBreakerUpdate,
  type BreakerAnswer,
  type BreakerCallInput,
  type BreakerReport,
  EconomicsWorkflow,
  reportBreakerSignal,
  type ReserveAnswer,
  type ReserveSpend,
  reserveSpendBatchUpdate,
  type ReserveSpendInput,
  reserveSpendUpdate,
  type SettleSpendInput,
  settleSpendSignal,
} from '../src/common/economics/messages';
import { breakerId, ledgerId } from '../src/common/economics/spec';
import { UpdateBatches } from './updateBatch';

/** The pause before asking a ledger or breaker again: from 25 ms, growing to at most a second, jittered so waiting chains do not ask in step. */
function pause(attempt: number): number {
  const ms = Math.min(1000, 25 * 1.5 ** attempt);
  return Math.round(ms / 2 + Math.random() * (ms / 2));
}

/** The activities of the shared economics, on the worker's client (made when first needed). */
export function economicsActivities(client: () => Client) {
  const taskQueue = () => Context.current().info.taskQueue;
  // Questions to one ledger or breaker from this process go together, one update in flight at a time.
  const batches = new UpdateBatches();

  return {
    /**
     * Reserve a call's worst case in a spend limit's ledger, asking again while the ledger is busy or
     * handing over, until it is granted or refused (or, for a chain that waits on its own timer,
     * told to wait for other chains' reservations) or the activity's time runs out.
     */
    async reserveSpend({ ledger, request, chainWaits }: ReserveSpendInput): Promise<ReserveAnswer> {
      const workflowId = ledgerId(ledger.name, ledger.key, ledger.windowStart);
      const queue = taskQueue();
      const start = () =>
        new WithStartWorkflowOperation(EconomicsWorkflow.SPEND_LEDGER, {
          workflowId,
          taskQueue: queue,
          args: [ledger],
          workflowIdConflictPolicy: 'USE_EXISTING',
          // A ledger that closed keeps its totals: its window is over, and nothing is started in its place.
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
        });
      const send = (requests: ReserveSpend[]) =>
        askTogether(client(), start, reserveSpendUpdate, reserveSpendBatchUpdate, requests);
      for (let tries = 0; ; tries++) {
        try {
          const answer = await batches.ask(workflowId, request, send);
          // A chain that waits on its own timer gets "wait" back: it holds no worker slot meanwhile.
          if ('granted' in answer || (chainWaits && 'wait' in answer)) return answer;
        } catch (err) {
          if (err instanceof WorkflowExecutionAlreadyStartedError)
            return { granted: true, spentMicros: 0, reservedMicros: 0, limitMicros: request.limitMicros };
          if (!askAgain(err)) throw err;
        }
        await Context.current().sleep(pause(tries));
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
      const workflowId = breakerId(breaker.scope, breaker.target);
      const queue = taskQueue();
      const start = () =>
        new WithStartWorkflowOperation(EconomicsWorkflow.CIRCUIT_BREAKER, {
          workflowId,
          taskQueue: queue,
          args: [breaker],
          workflowIdConflictPolicy: 'USE_EXISTING',
        });
      const send = (questions: AskBreaker[]) =>
        askTogether(client(), start, askBreakerUpdate, askBreakerBatchUpdate, questions);
      for (let tries = 0; ; tries++) {
        try {
          return await batches.ask(workflowId, message, send);
        } catch (err) {
          if (!askAgain(err)) throw err;
        }
        await Context.current().sleep(pause(tries));
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

/**
 * Ask `questions` of a ledger or breaker in one update (`one` for a single question, `many` for
 * more), started with `start` when it is not running. A workflow that started before it took
 * batches refuses `many` for want of a handler: it gets the questions one by one.
 */
async function askTogether<Q, A>(
  client: Client,
  start: () => WithStartWorkflowOperation<Workflow>,
  one: UpdateDefinition<A, [Q]>,
  many: UpdateDefinition<A[], [Q[]]>,
  questions: Q[],
): Promise<A[]> {
  if (questions.length > 1) {
    try {
      return await client.workflow.executeUpdateWithStart(many, { args: [questions], startWorkflowOperation: start() });
    } catch (err) {
      if (!noHandler(err)) throw err;
    }
  }
  const answers: A[] = [];
  for (const q of questions)
    answers.push(await client.workflow.executeUpdateWithStart(one, { args: [q], startWorkflowOperation: start() }));
  return answers;
}

/**
 * Whether an update is to be sent again: the server refused it for the updates in flight or the
 * workflow's handing over (RESOURCE_EXHAUSTED), aborted it before the workflow took it (the server
 * dropped the workflow's cached state, as a refusal does: UNAVAILABLE "workflow update was
 * aborted"; or the run closed under it), or a run that ended took it without answering. None of
 * them answered the question, and the ledger and breaker take a question sent again once.
 */
function askAgain(err: unknown): boolean {
  if (runEnded(err) || busy(err)) return true;
  if (err instanceof WorkflowNotFoundError) return /aborted by closing workflow/i.test(err.message);
  return grpcCodes(err).includes(UNAVAILABLE);
}

const RESOURCE_EXHAUSTED = 8;
const UNAVAILABLE = 14;

/** Whether the server refused the update for the workflow's updates in flight, or its handing over (RESOURCE_EXHAUSTED). */
function busy(err: unknown): boolean {
  return grpcCodes(err).includes(RESOURCE_EXHAUSTED);
}

/** The gRPC status codes on `err` and its causes (the client wraps the server's status). */
function grpcCodes(err: unknown): unknown[] {
  const codes: unknown[] = [];
  for (let e: unknown = err; e instanceof Error; e = (e as { cause?: unknown }).cause)
    codes.push((e as { code?: unknown }).code);
  return codes;
}

/** Whether a workflow refused an update for want of a handler (it started before the update was added). */
function noHandler(err: unknown): boolean {
  return (
    err instanceof WorkflowUpdateFailedError &&
    err.cause instanceof ApplicationFailure &&
    /no registered handler for update/i.test(err.cause.message)
  );
}

/** Whether an update was taken by a run that ended (continued as new) before answering it: send it again. */
function runEnded(err: unknown): boolean {
  return (
    err instanceof WorkflowUpdateFailedError &&
    err.cause instanceof ApplicationFailure &&
    err.cause.type === 'AcceptedUpdateCompletedWorkflow'
  );
}
