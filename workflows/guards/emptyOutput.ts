/**
 * An empty answer (no text, no tool call) is not a success: with `onEmptyOutput: 'retry'` the
 * model is told so once per activation, and a second empty answer fails with `EmptyOutputError`.
 * The final turn a spent budget grants (`onBudgetExceeded: 'final_answer'`) is the last model call
 * either way: an empty answer there fails at once.
 */
import { EMPTY_OUTPUT_NUDGE } from '../../src/common/answers';
import { EmptyOutputError } from '../../src/common/modelBehaviorErrors';
import { CONTINUE, refuseAnswer } from '../chain/verdict';
import type { Guard } from './guard';

/**
 * The empty-answer guard. `finalTurnEnds` says whether an empty final turn fails at once (asked only
 * when one happens, so runs recorded before it replay: the workflow passes a `patched()` check).
 */
export function emptyOutputGuardOf(finalTurnEnds: () => boolean): Guard {
  return {
    name: 'emptyOutput',
    onFinish(s, answer) {
      if (answer.text.trim() !== '' || s.options.onEmptyOutput === 'accept') return CONTINUE;
      const tries = s.answerRetries?.[this.name] ?? 0;
      if (tries >= 1 || (s.controls?.finalTurn && finalTurnEnds()))
        return { kind: 'fail', error: new EmptyOutputError(s.agentId, tries + 1) };
      return refuseAnswer(this.name, EMPTY_OUTPUT_NUDGE);
    },
  };
}

export const emptyOutputGuard: Guard = emptyOutputGuardOf(() => true);
