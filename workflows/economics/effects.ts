/**
 * The port to what chains share: spend ledgers and shared breakers, reached through local
 * activities (recorded in history as markers, so a replay reads their answers back).
 */
import { proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { BatonActivities } from '../../activities';
import { Patches } from '../../src/common/patches';
import { hasPatch } from '../patches';
import type { AskBreaker, BreakerAnswer, BreakerCallInput, BreakerReport, ReserveAnswer, ReserveSpendInput, SettleSpendInput } from '../../src/common/economics/messages';

/** What the chain asks and tells the shared economics. */
export interface EconomicsEffects {
  /** The chain's workflow id, run id and task queue. */
  readonly chain: { workflowId: string; runId: string; taskQueue: string };
  /** Whether a reservation that must wait comes back as `wait`, for the chain to ask again after a timer. */
  waitsOnTimer(): boolean;
  reserve(input: ReserveSpendInput): Promise<ReserveAnswer>;
  settle(input: SettleSpendInput): Promise<void>;
  ask(input: BreakerCallInput<AskBreaker>): Promise<BreakerAnswer>;
  report(input: BreakerCallInput<BreakerReport>): Promise<void>;
}

// A reservation may wait for other chains' calls to settle (in runs before the chain waited on its own timer): as long as a model call may take.
const RESERVE = { startToCloseTimeout: '15 minutes', retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds', maximumAttempts: 10 } } as const;
const QUICK = { startToCloseTimeout: '1 minute', retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds', maximumAttempts: 10 } } as const;

/** The effects in a workflow. */
export function temporalEconomics(): EconomicsEffects {
  const info = workflowInfo();
  const { reserveSpend } = proxyLocalActivities<BatonActivities>({ ...RESERVE, summary: 'spend limit' });
  const { settleSpend, askBreaker, reportToBreaker } = proxyLocalActivities<BatonActivities>({ ...QUICK, summary: 'shared economics' });
  return {
    chain: { workflowId: info.workflowId, runId: info.runId, taskQueue: info.taskQueue },
    waitsOnTimer: () => hasPatch(Patches.SPEND_WAIT_TIMER),
    reserve: (input) => reserveSpend(input),
    settle: (input) => settleSpend(input),
    ask: (input) => askBreaker(input),
    report: (input) => reportToBreaker(input),
  };
}
