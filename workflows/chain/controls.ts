/**
 * What the controls record as the chain goes: each control event applied to the state and
 * published in history (a memo event the audit and a replay read), a guard's verdict weighed by the
 * step that asked for it, and the moves of the circuit breakers — a failure of a target, a try let
 * through after the cooldown, a success.
 */
import { durationMs } from '../../src/common/check';
import type { ControlEvent } from '../../src/common/controls';
import { APPROVAL_EVENT_MEMO } from '../../src/common/messages';
import { breakerOpenUntil } from './controlState';
import type { ChainRun } from './run';
import type { Verdict } from './verdict';

/** Apply `event` and put it on the record. */
export function recordControl(run: ChainRun, event: ControlEvent): void {
  const at = run.effects.now();
  run.chain.apply({ type: 'control', event, at });
  const { kind, ...fields } = event;
  run.effects.publish({
    [APPROVAL_EVENT_MEMO]: { type: 'control', control: kind, at: new Date(at).toISOString(), ...fields },
  });
}

/** A failure of `agent` (a failed tool call, a guardrail trip, a failed specialist): its breaker counts it, and opens at the threshold or on a failed try. */
export function noteFailure(run: ChainRun, agent: string, reason: string): void {
  run.economy?.noteFailure(run, agent, reason);
  const { state } = run.chain;
  const threshold = state.options.breakerThreshold;
  if (!state.controls || threshold <= 0) return;
  recordControl(run, { kind: 'target_failed', agent, reason });
  const b = run.chain.state.controls!.breakers[agent]!;
  if (b.state === 'half_open' || (b.state === 'closed' && b.failures >= threshold)) {
    const until = run.effects.now() + (durationMs(state.options.breakerCooldown) ?? 60_000);
    recordControl(run, { kind: 'breaker_opened', agent, failures: b.failures, until: new Date(until).toISOString() });
  }
}

/** A handoff or delegation to `agent` goes ahead: an open breaker whose cooldown has passed lets this try through (half-open). */
export function admitTarget(run: ChainRun, agent: string): void {
  const until = breakerOpenUntil(run.chain.state, agent);
  if (until !== undefined && run.effects.now() >= until) recordControl(run, { kind: 'breaker_half_open', agent });
}

/** `agent` finished its work without failing (its activation ended, or its delegated chain answered): a half-open breaker closes. */
export function noteSuccess(run: ChainRun, agent: string): void {
  run.economy?.noteSuccess(run, agent);
  const b = run.chain.state.controls?.breakers[agent];
  if (b && b.state === 'half_open') recordControl(run, { kind: 'breaker_closed', agent });
}

/**
 * Apply a guard's verdict: `true` when the model is to be told something and go on (a retry, or
 * its last turn once a budget ran out), throws on `fail`. What a control did goes on the record
 * either way.
 */
export function retried(run: ChainRun, verdict: Verdict): verdict is Extract<Verdict, { kind: 'retry' | 'last_turn' }> {
  if ((verdict.kind === 'fail' || verdict.kind === 'retry' || verdict.kind === 'last_turn') && verdict.control)
    recordControl(run, verdict.control);
  if (verdict.kind === 'fail') throw verdict.error;
  if (verdict.kind === 'last_turn') return true;
  if (verdict.kind !== 'retry') return false;
  if (verdict.event) run.chain.apply(verdict.event);
  return true;
}
