/** The guards baton runs; see `guard.ts` for what a guard is. */
import { approvalGuard } from './approvals';
import { breakerGuard } from './breakers';
import { budgetGuard } from './budgets';
import { costGuard } from './costs';
import { loopGuard } from './loops';
import { emptyOutputGuardOf } from './emptyOutput';
import { Guards } from './guard';
import { handoffRulesGuard } from './handoffRules';
import { handoffLimitGuard, turnLimitGuard } from './limits';
import { outputTypeGuard } from './outputType';
import { scriptGuard } from './scripts';

export { type Guard, Guards } from './guard';

/**
 * baton's guards, in the order they are asked: turn and handoff limits, then (runs started with
 * `baton-controls`) budgets (in money too, runs started with `baton-economics`), loop detection
 * and circuit breakers, then `isEnabled` rules,
 * approvals, and on finish the empty-answer check (runs started with `baton-run-v2`), the output
 * type, and the scripted models' unused steps. `now` is workflow time.
 */
export function defaultGuards(options: {
  emptyOutputCheck: boolean;
  controls?: boolean;
  /** Budgets in money (`maxCost`), in runs started with `baton-economics`. */
  economics?: boolean;
  now?: () => number;
  /**
   * Fail a chain that ends with scripted steps unused. A conversation answers each message with a
   * chain of its own, so its scripts are still in use when one ends: it leaves this out. @default true
   */
  scriptCheck?: boolean;
  /**
   * Whether an empty answer in the final turn of a spent budget fails at once rather than being
   * nudged into another model call; asked when one happens (a `patched()` check in workflows). @default always
   */
  finalTurnEnds?: () => boolean;
}): Guards {
  const now = options.now ?? (() => 0);
  const controls = options.controls
    ? [budgetGuard(now), ...(options.economics ? [costGuard] : []), loopGuard, breakerGuard(now)]
    : [];
  return new Guards([
    turnLimitGuard,
    handoffLimitGuard,
    ...controls,
    handoffRulesGuard,
    approvalGuard,
    ...(options.emptyOutputCheck ? [emptyOutputGuardOf(options.finalTurnEnds ?? (() => true))] : []),
    outputTypeGuard,
    ...(options.scriptCheck === false ? [] : [scriptGuard]),
  ]);
}
