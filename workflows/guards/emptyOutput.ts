/**
 * An empty answer (no text, no tool call) is not a success: with `onEmptyOutput: 'retry'` the
 * model is told so once per activation, and a second empty answer fails with `EmptyOutputError`.
 */
import { EMPTY_OUTPUT_NUDGE } from '../../src/common/answers';
import { EmptyOutputError } from '../../src/common/errors';
import { CONTINUE, type Guard } from './guard';

export const emptyOutputGuard: Guard = {
  name: 'emptyOutput',
  onFinish(s, output) {
    if (output.trim() !== '' || s.options.onEmptyOutput === 'accept') return CONTINUE;
    const tries = s.emptyOutputs ?? 0;
    if (tries >= 1) return { kind: 'fail', error: new EmptyOutputError(s.agentId, tries + 1) };
    return { kind: 'retry', message: EMPTY_OUTPUT_NUDGE, event: { type: 'empty_output_answered', message: EMPTY_OUTPUT_NUDGE } };
  },
};
