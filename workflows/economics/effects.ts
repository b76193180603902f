/**
 * The port to what chains share: spend ledgers and shared breakers. Questions to them (a
 * reservation, a breaker's say) are activities; news (settles, reports) local activities, recorded
 * as markers. Runs from before the `baton-shared-economics-activities` patch asked with local
 * activities too.
 */
import { proxyActivities, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { BatonActivities } from '../../activities';
import { Patches } from '../../src/common/patches';
import { hasPatch } from '../patches';
import type {
  AskBreaker,
  BreakerAnswer,
  BreakerCallInput,
  BreakerReport,
  ReserveAnswer,
  ReserveSpendInput,
  SettleSpendInput,
} from '../../src/common/economics/messages';

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

// Before the patch a reservation waited for other chains' calls to settle inside its activity: as long as a model call may take.
const RESERVE = {
  startToCloseTimeout: '15 minutes',
  retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds', maximumAttempts: 10 },
} as const;
const QUICK = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds', maximumAttempts: 10 },
} as const;

/** The effects in a workflow. */
export function temporalEconomics(): EconomicsEffects {
  const info = workflowInfo();
  const local = proxyLocalActivities<BatonActivities>({ ...RESERVE, summary: 'spend limit' });
  const { settleSpend, askBreaker, reportToBreaker } = proxyLocalActivities<BatonActivities>({
    ...QUICK,
    summary: 'shared economics',
  });
  // A question to a ledger or breaker waits for that workflow's own task; as a local activity it would hold
  // the chain's workflow task (and a worker slot) meanwhile, and a crowd of chains would leave the ledger none.
  const asked = proxyActivities<BatonActivities>({ ...QUICK, summary: 'shared economics' });
  const activities = () => hasPatch(Patches.SHARED_ECONOMICS_ACTIVITIES);
  return {
    chain: { workflowId: info.workflowId, runId: info.runId, taskQueue: info.taskQueue },
    waitsOnTimer: activities,
    reserve: (input) => (activities() ? asked.reserveSpend(input) : local.reserveSpend(input)),
    settle: (input) => settleSpend(input),
    ask: (input) => (activities() ? asked.askBreaker(input) : askBreaker(input)),
    report: (input) => reportToBreaker(input),
  };
}
