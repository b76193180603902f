/**
 * A circuit breaker shared across chains: failures of its target in any chain count, it opens at
 * the threshold, refuses every chain while open, lets one chain's trial through after the cooldown
 * (half open), and closes on that trial's success or opens again on its failure. An operator may
 * reset it, on the record.
 *
 * Pure: no Temporal API, no I/O.
 */
import { isRecord } from '../../src/common/check';
import type {
  AskBreaker,
  BreakerAnswer,
  BreakerReport,
  BreakerSettings,
  BreakerView,
  ResetBreaker,
} from '../../src/common/economics/messages';

/** Report ids remembered, so a report sent again counts once. */
const SEEN = 500;
/** Resets kept on the record. */
const RESETS = 10;

/** A new breaker: closed, no failures. */
export function newBreaker(
  scope: string,
  target: string,
  settings: BreakerSettings = { threshold: 3, cooldownMs: 60_000 },
): BreakerView {
  return { scope, target, state: 'closed', failures: 0, resets: [], seen: [], settings };
}

export class SharedBreaker {
  constructor(public view: BreakerView) {}

  /** May `a.chain` go to the target at `now`? The first chain to ask after the cooldown gets the trial. */
  ask(a: AskBreaker, now: number): BreakerAnswer {
    this.configure(a);
    const v = this.view;
    if (v.state === 'closed') return { state: 'closed', failures: v.failures };
    if (v.state === 'open' && v.until && now < Date.parse(v.until))
      return { state: 'open', failures: v.failures, until: v.until };
    if (v.state === 'half_open' && v.trial && v.trial.chain !== a.chain && now < Date.parse(v.trial.until)) {
      return { state: 'half_open', failures: v.failures, until: v.trial.until };
    }
    // The cooldown has passed, or the trial's time ran out without a report: this chain makes the trial.
    this.view = {
      ...v,
      state: 'half_open',
      trial: { chain: a.chain, until: new Date(now + v.settings.cooldownMs).toISOString() },
    };
    return { state: 'half_open', failures: v.failures, trial: true };
  }

  /** A failure or success of the target in a chain; `true` when the breaker's state changed. */
  report(r: BreakerReport, now: number): boolean {
    this.configure(r);
    const v = this.view;
    if (v.seen?.includes(r.id)) return false;
    const seen = [...(v.seen ?? []), r.id].slice(-SEEN);
    const at = new Date(now).toISOString();
    if (r.outcome === 'failure') {
      const failures = v.failures + 1;
      const lastFailure = { chain: r.chain, reason: (r.reason ?? 'failed').slice(0, 500), at };
      const opens =
        (v.state === 'half_open' && v.trial?.chain === r.chain) ||
        (v.state === 'closed' && failures >= v.settings.threshold);
      if (opens) {
        const { trial: _t, ...rest } = v;
        this.view = {
          ...rest,
          state: 'open',
          failures,
          openedAt: at,
          until: new Date(now + v.settings.cooldownMs).toISOString(),
          lastFailure,
          seen,
        };
        return true;
      }
      this.view = { ...v, failures, lastFailure, seen };
      return false;
    }
    // A success closes a half-open breaker (its trial) and clears the failures of a closed one; while open it changes nothing.
    if (v.state === 'half_open' && v.trial?.chain === r.chain) {
      this.view = this.closed(seen);
      return true;
    }
    this.view = v.state === 'closed' ? { ...v, failures: 0, seen } : { ...v, seen };
    return false;
  }

  /** Close the breaker on an operator's word; the reset goes on the record. */
  reset(r: ResetBreaker, now: number): void {
    const resets = [
      ...this.view.resets,
      { by: r.by, ...(r.reason ? { reason: r.reason } : {}), at: new Date(now).toISOString() },
    ].slice(-RESETS);
    this.view = { ...this.closed(this.view.seen ?? []), resets };
  }

  private closed(seen: string[]): BreakerView {
    const { trial: _t, openedAt: _o, until: _u, ...rest } = this.view;
    return { ...rest, state: 'closed', failures: 0, seen };
  }

  private configure(s: BreakerSettings): void {
    this.view = { ...this.view, settings: { threshold: s.threshold, cooldownMs: s.cooldownMs } };
  }
}

const text = (v: unknown, max: number) => typeof v === 'string' && v !== '' && v.length <= max;

/** Problems with a breaker's settings as a chain sends them. */
function settingsProblems(s: Record<string, unknown>): string[] {
  const problems: string[] = [];
  if (typeof s.threshold !== 'number' || !Number.isInteger(s.threshold) || s.threshold < 1 || s.threshold > 1000)
    problems.push('"threshold" must be an integer from 1 to 1000');
  if (
    typeof s.cooldownMs !== 'number' ||
    !Number.isInteger(s.cooldownMs) ||
    s.cooldownMs < 1000 ||
    s.cooldownMs > 365 * 86_400_000
  )
    problems.push('"cooldownMs" must be an integer from 1000 to a year in milliseconds');
  return problems;
}

/** Problems with a chain's question (the update's validator refuses it with them). */
export function askProblems(a: unknown): string[] {
  if (!isRecord(a)) return ['a question must be {chain, threshold, cooldownMs}'];
  return [
    ...(text(a.chain, 600) ? [] : ['"chain" must name the chain asking (a workflow id)']),
    ...settingsProblems(a),
  ];
}

/** Whether a report is well formed (a bad one is dropped: signals have no caller to answer). */
export function validReport(r: unknown): r is BreakerReport {
  return (
    isRecord(r) &&
    text(r.id, 600) &&
    text(r.chain, 600) &&
    (r.outcome === 'failure' || r.outcome === 'success') &&
    (r.reason === undefined || typeof r.reason === 'string') &&
    settingsProblems(r).length === 0
  );
}

/** Problems with an operator's reset. */
export function resetProblems(r: unknown): string[] {
  if (!isRecord(r)) return ['a reset must be {by, reason?}'];
  return [
    ...(text(r.by, 200) ? [] : ['"by" must name who resets the breaker (1 to 200 characters)']),
    ...(r.reason === undefined || (typeof r.reason === 'string' && r.reason.length <= 1000)
      ? []
      : ['"reason" must be text of at most 1000 characters']),
  ];
}
