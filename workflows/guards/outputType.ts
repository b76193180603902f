/**
 * Structured answers: an agent with an `outputType` must answer with a value of that type (checked
 * by the `callModel` activity with the agent's zod schema). An answer that does not match is sent
 * back with the problem, at most `maxOutputRetries` times; then the run fails with
 * `OutputValidationError`.
 */
import { invalidOutputAnswer } from '../../src/common/answers';
import { OutputValidationError } from '../../src/common/modelBehaviorErrors';
import { CONTINUE, refuseAnswer } from '../chain/verdict';
import type { Guard } from './guard';

export const outputTypeGuard: Guard = {
  name: 'outputType',
  onFinish(s, answer) {
    if (!answer.checked || !('error' in answer.checked)) return CONTINUE;
    const tries = s.answerRetries?.[this.name] ?? 0;
    if (tries >= s.options.maxOutputRetries)
      return { kind: 'fail', error: new OutputValidationError(s.agentId, answer.checked.error, tries + 1) };
    return refuseAnswer(this.name, invalidOutputAnswer(answer.checked.error));
  },
};
