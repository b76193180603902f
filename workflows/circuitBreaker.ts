/**
 * The `circuitBreaker` workflow: the breaker of one target, shared by the chains of one scope.
 * Chains ask it before a handoff or delegation (`askBreaker`, update-with-start from a recorded
 * activity) and report their target's failures and successes (`reportToBreaker`); operators reset
 * it (`resetBreaker`, recorded with who did). Its state is in its `batonBreaker` memo, upserted on
 * each change, so lists and metrics read it without a query. A breaker closed and clean for an
 * hour ends; the next question starts a fresh one.
 */
import { ApplicationFailure } from '@temporalio/common';
import { allHandlersFinished, condition, setHandler, upsertMemo } from '@temporalio/workflow';
import {
  type AskBreaker,
  askBreakerBatchUpdate,
  askBreakerUpdate,
  BREAKER_MEMO,
  EconomicsWorkflow,
  type BreakerInput,
  breakerQuery,
  type BreakerView,
  reportBreakerSignal,
  resetBreakerUpdate,
} from '../src/common/economics/messages';
import { askProblems, newBreaker, resetProblems, SharedBreaker, validReport } from './economics/breaker';
import { batchProblems } from './economics/batch';
import { handOver, handOverDue } from './economics/handover';

/** How long a closed breaker without failures waits for news before it ends. */
export const BREAKER_IDLE_MS = 3_600_000;
/** Messages a run takes before it continues as new (besides whenever Temporal suggests it). */
const MESSAGES_PER_RUN = 1000;

export async function circuitBreaker(input: BreakerInput): Promise<BreakerView> {
  const breaker = new SharedBreaker(input.resume ?? newBreaker(input.scope, input.target));
  let messages = 0;
  let last = JSON.stringify(shown(breaker.view));
  // Each change of state goes in the memo: one history event per change, none per question.
  const publish = () => {
    const now = JSON.stringify(shown(breaker.view));
    if (now !== last) upsertMemo({ [BREAKER_MEMO]: shown(breaker.view) });
    last = now;
  };
  const refuse = (problems: string[], what: string) => {
    if (problems.length > 0)
      throw ApplicationFailure.nonRetryable(`Invalid ${what}: ${problems.join('; ')}`, 'InvalidBreakerRequest');
  };
  const ask = (a: AskBreaker) => {
    messages++;
    const answer = breaker.ask(a, Date.now());
    publish();
    return answer;
  };
  setHandler(askBreakerUpdate, ask, { validator: (a) => refuse(askProblems(a), 'question') });
  setHandler(askBreakerBatchUpdate, (batch) => batch.map(ask), {
    validator: (batch) => refuse(batchProblems(batch, askProblems), 'question'),
  });
  setHandler(reportBreakerSignal, (r) => {
    messages++;
    if (!validReport(r)) return;
    breaker.report(r, Date.now());
    publish();
  });
  setHandler(
    resetBreakerUpdate,
    (r) => {
      messages++;
      breaker.reset(r, Date.now());
      publish();
      return shown(breaker.view);
    },
    { validator: (r) => refuse(resetProblems(r), 'reset') },
  );
  setHandler(breakerQuery, () => shown(breaker.view));
  if (!input.resume) upsertMemo({ [BREAKER_MEMO]: shown(breaker.view) });

  const full = () => handOverDue(messages, MESSAGES_PER_RUN);
  for (;;) {
    const seen = messages;
    const woke = await condition(() => full() || messages !== seen, BREAKER_IDLE_MS);
    if (full()) break;
    const clean = breaker.view.state === 'closed' && breaker.view.failures === 0;
    if (!woke && clean) {
      await condition(allHandlersFinished);
      return shown(breaker.view);
    }
  }
  await condition(allHandlersFinished);
  return handOver<typeof circuitBreaker>(EconomicsWorkflow.CIRCUIT_BREAKER, { ...input, resume: breaker.view });
}

/** The view as others see it: without the report ids it keeps to count each report once. */
function shown(v: BreakerView): BreakerView {
  const { seen: _seen, ...rest } = v;
  return rest;
}
