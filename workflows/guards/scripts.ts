/** Scripted models: a chain that ends with scripted steps unused fails (`requireAllSteps`). */
import { UnconsumedScriptStepsError } from '../../src/common/errors';
import { isScriptedSpec } from '../../src/common/model';
import { CONTINUE } from '../chain/verdict';
import type { Guard } from './guard';

export const scriptGuard: Guard = {
  name: 'scriptedSteps',
  onComplete(s) {
    const unconsumed: Record<string, number> = {};
    for (const [id, calls] of Object.entries(s.callCounts)) {
      const model = s.team.agents[id]?.model;
      if (isScriptedSpec(model) && model.requireAllSteps && model.steps.length > calls)
        unconsumed[id] = model.steps.length - calls;
    }
    return Object.keys(unconsumed).length > 0
      ? { kind: 'fail', error: new UnconsumedScriptStepsError(unconsumed) }
      : CONTINUE;
  },
};
