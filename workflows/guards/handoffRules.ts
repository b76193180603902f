/** A handoff's `isEnabled` rule: a target whose rule does not hold now is refused like one not offered. */
import { unavailableHandoffAnswer } from '../../src/common/answers';
import { ruleHolds } from '../chain/tools';
import { CONTINUE } from '../chain/verdict';
import type { Guard } from './guard';

export const handoffRulesGuard: Guard = {
  name: 'isEnabled',
  beforeHandoff(s, h) {
    const rule = s.team.agents[h.from]?.handoffOptions?.[h.to]?.isEnabled;
    return ruleHolds(s, rule) ? CONTINUE : { kind: 'retry', message: unavailableHandoffAnswer(h.to) };
  },
};
