/**
 * The chain's effects in a workflow: each {@link ChainEffects} command as Temporal's (activities
 * and local activities, in `temporalActivities.ts`; child chains, signals to other chains, memo and
 * search attribute upserts, durable timers, `patched()`).
 */
import {
  ApplicationFailure,
  CancelledFailure,
  ChildWorkflowFailure,
  TerminatedFailure,
  TimeoutFailure,
} from '@temporalio/common';
import {
  CancellationScope,
  condition,
  executeChild,
  getExternalWorkflowHandle,
  isCancellation,
  ParentClosePolicy,
  log,
  proxyActivities,
  sleep,
  upsertMemo,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import { hasPatch } from '../patches';
import { upsertAttributes } from '../searchAttributes';
import { nearHistoryLimits } from '../historyLimits';
import type { BatonActivities } from '../../activities';
import { TeamMismatchError } from '../../src/common/errors';
import {
  BatonAgent,
  BatonHandoffs,
  BatonStatusAttribute,
  childApprovalsSignal,
  forwardDecisionSignal,
  forwardedOutcomeSignal,
  HANDOFF_MEMO,
  PARENT_MEMO,
  WorkflowType,
} from '../../src/common/messages';
import { Patches } from '../../src/common/patches';
import { priorityOption } from '../../src/common/priority';
import { workflowTaskTimeoutOption } from '../../src/common/taskTimeout';
import {
  BatonStatus,
  type HandoffRunInput,
  type HandoffRunResult,
  type RecordHandoffInput,
} from '../../src/common/run';
import type { ChainEffects } from './effects';
import { activityEffects } from './temporalActivities';

/** The shape of the `handoffRun` workflow, for starting specialists as children. */
type HandoffRunWorkflow = (input: HandoffRunInput) => Promise<HandoffRunResult<unknown>>;

/**
 * The effects of a `handoffRun` workflow. `v2` is the {@link Patches.RUN_V2} decision, made once
 * when the run starts.
 */
export function temporalEffects(v2: boolean): ChainEffects {
  let status: BatonStatus = BatonStatus.RUNNING;
  return {
    workflowId: workflowInfo().workflowId,
    now: () => Date.now(),
    newId: () => uuid4(),
    ...activityEffects(),
    startRun(agent) {
      upsertAttributes([
        { key: BatonAgent, value: agent },
        { key: BatonStatusAttribute, value: BatonStatus.RUNNING },
        { key: BatonHandoffs, value: 0 },
      ]);
    },
    recordHandoff(entry, team) {
      const activities = proxyActivities<BatonActivities>({
        startToCloseTimeout: '1 minute',
        retry: { maximumAttempts: 3 },
        summary: `${entry.handoff.from} → ${entry.handoff.to}`,
      });
      let hooks: ((input: RecordHandoffInput) => Promise<void>) | undefined = activities.recordHandoff;
      if (v2 || hasPatch(Patches.HANDOFF_RECORD_IN_MEMO)) {
        // The memo upsert is the history record; an activity only when there are hooks to run.
        upsertMemo({ [HANDOFF_MEMO]: entry });
        hooks = team.hasHandoffListeners ? activities.runHandoffHooks : undefined;
      }
      // Hooks observe the chain; a hook that keeps failing must not stop it.
      return hooks?.(entry).catch((err: unknown) =>
        log.warn('agent_handoff hook failed', { error: String(err), handoff: entry.handoff }),
      );
    },
    publish: (memo) => upsertMemo(memo),
    reportPending(parentWorkflowId, report) {
      // The parent may have ended meanwhile; a report it cannot take is of no use to anyone.
      getExternalWorkflowHandle(parentWorkflowId)
        .signal(childApprovalsSignal, report)
        .catch(() => undefined);
    },
    forwardDecision(workflowId, forwarded) {
      return getExternalWorkflowHandle(workflowId).signal(forwardDecisionSignal, forwarded);
    },
    answerForward(workflowId, outcome) {
      // The caller may have ended meanwhile; nobody waits for the answer then.
      getExternalWorkflowHandle(workflowId)
        .signal(forwardedOutcomeSignal, outcome)
        .catch(() => undefined);
    },
    async delegate(start) {
      try {
        const result = await executeChild<HandoffRunWorkflow>(WorkflowType.HANDOFF_RUN, {
          workflowId: start.workflowId,
          args: [start.input],
          // The link without its token: visibility shows the memo to anyone who lists workflows.
          memo: { [PARENT_MEMO]: start.input.parent ? withoutToken(start.input.parent) : undefined },
          parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
          ...(start.timeoutMs !== undefined ? { workflowExecutionTimeout: start.timeoutMs } : {}),
          ...priorityOption(start.input.options?.priority),
          ...workflowTaskTimeoutOption,
        });
        return { ok: true, result };
      } catch (err) {
        if (isCancellation(err) && !(err instanceof ChildWorkflowFailure)) throw err;
        const cause = err instanceof ChildWorkflowFailure ? err.cause : undefined;
        const mismatch =
          cause instanceof ApplicationFailure && cause.type === TeamMismatchError.name
            ? (cause.details?.[0] as Record<string, unknown> | undefined)
            : undefined;
        return { ok: false, reason: childFailureReason(err), ...(mismatch ? { mismatch } : {}) };
      }
    },
    setAgent(agent, handoffs) {
      upsertAttributes([
        { key: BatonAgent, value: agent },
        { key: BatonHandoffs, value: handoffs },
      ]);
    },
    setStatus(next) {
      status = next;
      upsertAttributes([{ key: BatonStatusAttribute, value: next }]);
    },
    get status() {
      return status;
    },
    condition: (ready) => condition(ready),
    timer(ms) {
      const scope = new CancellationScope();
      let fired = false;
      void scope
        .run(() => sleep(ms))
        .then(
          () => (fired = true),
          (err: unknown) => {
            if (!isCancellation(err)) throw err;
          },
        );
      return {
        get fired() {
          return fired;
        },
        cancel: () => {
          if (!fired) scope.cancel();
        },
      };
    },
    shouldContinueAsNew(afterEvents, beforeLimits) {
      const info = workflowInfo();
      return (
        info.continueAsNewSuggested ||
        (afterEvents > 0 && info.historyLength >= afterEvents) ||
        (beforeLimits === true && nearHistoryLimits())
      );
    },
    historyLength: () => workflowInfo().historyLength,
    patched: (id) => hasPatch(id),
  };
}

function withoutToken<T extends { token?: string }>(link: T): Omit<T, 'token'> {
  const { token: _token, ...rest } = link;
  return rest;
}

/** Why a child chain gave no result, in words for the model and the audit. */
function childFailureReason(err: unknown): string {
  const cause = err instanceof ChildWorkflowFailure ? err.cause : err;
  if (cause instanceof TimeoutFailure) return 'it timed out';
  if (cause instanceof CancelledFailure) return 'it was cancelled';
  if (cause instanceof TerminatedFailure) return 'it was terminated';
  if (cause instanceof ApplicationFailure) return `${cause.type ?? 'Error'}: ${cause.message}`;
  return cause instanceof Error ? cause.message : String(cause);
}
