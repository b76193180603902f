/**
 * The `spendLedger` workflow: what one key spent in one window of one spend limit, shared by every
 * chain with that key. Chains reserve a call's worst case before it (`reserveSpend`, an update
 * sent with update-with-start by a recorded activity) and settle what it cost after (`settleSpend`).
 * Updates are decided one at a time (a batch's reservations in order), so two chains at once near
 * the limit cannot both take its last room; one that must wait for others' settles is told so and asks again.
 * The ledger stays open through its window and an hour after (for late settles), continues as new
 * as its history grows (and onto the current Worker Deployment version when it changes), and ends
 * with its totals.
 */
import { allHandlersFinished, condition, setHandler } from '@temporalio/workflow';
import { ApplicationFailure } from '@temporalio/common';
import {
  EconomicsWorkflow,
  type LedgerView,
  ledgerQuery,
  type ReserveAnswer,
  type ReserveSpend,
  reserveSpendBatchUpdate,
  reserveSpendUpdate,
  settleSpendSignal,
  type SpendLedgerInput,
} from '../src/common/economics/messages';
import { batchProblems } from './economics/batch';
import { handOver, handOverDue } from './economics/handover';
import { Ledger, newLedger, reserveProblems, validSettle } from './economics/ledger';

/** How long a ledger stays open after its window, for settles of calls made at its end. */
export const LEDGER_GRACE_MS = 3_600_000;
/** Requests a run takes before it continues as new (besides whenever Temporal suggests it). */
const REQUESTS_PER_RUN = 1000;

export async function spendLedger(input: SpendLedgerInput): Promise<LedgerView> {
  const ledger = new Ledger(input.resume ? { ...input.resume, runs: input.resume.runs + 1 } : newLedger(0));
  let requests = 0;
  let handingOver = false;
  const totals = () => ({
    spentMicros: ledger.state.spentMicros,
    reservedMicros: ledger.reservedMicros,
    limitMicros: ledger.state.limitMicros,
  });
  const view = (): LedgerView => ({
    name: input.name,
    key: input.key,
    window: input.window,
    windowStart: input.windowStart,
    windowEnd: input.windowEnd,
    currency: input.currency,
    ...totals(),
    openReservations: ledger.state.open.length,
    granted: ledger.state.granted,
    refused: ledger.state.refused,
  });

  const answer = (r: ReserveSpend): ReserveAnswer => {
    requests++;
    // A run about to hand over answers "again": the caller asks the next run.
    if (handingOver) return { again: true, ...totals() };
    const decision = ledger.decide(r);
    // Waiting is the caller's: an update held open would take one of the few a workflow has in flight.
    if (decision === 'wait') return { wait: true, ...totals() };
    ledger.take(r, decision, Date.now());
    return { granted: decision === 'granted', ...totals() };
  };
  const refuse = (problems: string[]) => {
    if (problems.length > 0)
      throw ApplicationFailure.nonRetryable(`Invalid reservation: ${problems.join('; ')}`, 'InvalidReservation');
  };
  setHandler(reserveSpendUpdate, answer, { validator: (r) => refuse(reserveProblems(r)) });
  setHandler(reserveSpendBatchUpdate, (batch) => batch.map(answer), {
    validator: (batch) => refuse(batchProblems(batch, reserveProblems)),
  });
  setHandler(settleSpendSignal, (s) => {
    requests++;
    if (validSettle(s)) ledger.settle(s);
  });
  setHandler(ledgerQuery, view);

  const closeAt = Date.parse(input.windowEnd) + LEDGER_GRACE_MS;
  for (;;) {
    const nextExpiry = ledger.expire(Date.now());
    const wake = Date.now() < closeAt ? Math.min(nextExpiry ?? closeAt, closeAt) : (nextExpiry ?? closeAt);
    const full = () => handOverDue(requests, REQUESTS_PER_RUN);
    if (Date.now() >= closeAt && ledger.state.open.length === 0) {
      await condition(allHandlersFinished);
      return view();
    }
    if (full()) break;
    await condition(full, Math.max(1, wake - Date.now()));
  }
  handingOver = true;
  await condition(allHandlersFinished);
  return handOver<typeof spendLedger>(EconomicsWorkflow.SPEND_LEDGER, { ...input, resume: ledger.state });
}
