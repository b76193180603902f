/**
 * An empty answer (no text, no tool call) is not a success: with `onEmptyOutput: 'retry'` the
 * model is told so once per activation, and a second empty answer fails with `EmptyOutputError`.
 */
import { EMPTY_OUTPUT_NUDGE } from '../../src/common/answers';
import { EmptyOutputError } from '../../src/common/errors';
import { CONTINUE, type Guard, refuseAnswer } from './guard';

export const emptyOutputGuard: Guard = {
  name: 'emptyOutput',
  onFinish(s, answer) {
    if (answer.text.trim() !== '' || s.options.onEmptyOutput === 'accept') return CONTINUE;
    const tries = s.answerRetries?.[this.name] ?? 0;
    return tries >= 1 ? { kind: 'fail', error: new EmptyOutputError(s.agentId, tries + 1) } : refuseAnswer(this.name, EMPTY_OUTPUT_NUDGE);
  },
};
