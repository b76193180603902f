/** The guards baton runs; see `guard.ts` for what a guard is. */
import { approvalGuard } from './approvals';
import { emptyOutputGuard } from './emptyOutput';
import { Guards } from './guard';
import { handoffRulesGuard } from './handoffRules';
import { handoffLimitGuard, turnLimitGuard } from './limits';
import { outputTypeGuard } from './outputType';
import { scriptGuard } from './scripts';

export { CONTINUE, type FinalAnswer, type Guard, Guards, type Verdict } from './guard';

/**
 * baton's guards, in the order they are asked: turn and handoff limits, `isEnabled` rules, approvals, then on finish
 * the empty-answer check (runs started with `baton-run-v2`), the output type, and the scripted
 * models' unused steps.
 */
export function defaultGuards(options: { emptyOutputCheck: boolean }): Guards {
  return new Guards([turnLimitGuard, handoffLimitGuard, handoffRulesGuard, approvalGuard, ...(options.emptyOutputCheck ? [emptyOutputGuard] : []), outputTypeGuard, scriptGuard]);
}
