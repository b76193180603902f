/**
 * The limits of a chain: model turns per activation, handoffs per chain, and how many invalid
 * handoff targets the model may be told about before the run fails.
 */
import { invalidTargetAnswer } from '../../src/common/answers';
import { HANDOFF_TOOL_NAME } from '../../src/common/handoff';
import { MaxHandoffsExceededError, MaxTurnsExceededError } from '../../src/common/budgetErrors';
import { HandoffTargetNotFoundError } from '../../src/common/modelBehaviorErrors';
import { overBudget } from './budgets';
import { CONTINUE } from '../chain/verdict';
import type { Guard } from './guard';

/**
 * `maxTurns`: an activation of an agent that neither answers nor hands off in time fails the run
 * (or, under `onBudgetExceeded: 'final_answer'`, gets one last turn without tools).
 */
export const turnLimitGuard: Guard = {
  name: 'maxTurns',
  beforeModelCall(s) {
    const limit = s.options.maxTurns;
    if (s.controls?.finalTurn || s.activationTurns < limit) return CONTINUE;
    return overBudget(
      s,
      { budget: 'turns', limit, used: s.activationTurns, agent: s.agentId },
      new MaxTurnsExceededError(s.agentId, limit),
    );
  },
};

/**
 * A handoff to a target the agent may not hand off to fails the run (`HandoffTargetNotFoundError`),
 * or with `onInvalidHandoff: 'retry'` is answered with the valid targets up to
 * `maxInvalidHandoffRetries` times; past `maxHandoffs` the run fails (`MaxHandoffsExceededError`).
 */
export const handoffLimitGuard: Guard = {
  name: 'handoffs',
  beforeHandoff(s, h) {
    const from = s.team.agents[h.from];
    const allowed = from?.handoffs ?? [];
    if ((!allowed.includes(h.to) && h.via !== 'specialist') || !s.team.agents[h.to]) {
      const error = new HandoffTargetNotFoundError(h.from, h.to, allowed);
      if (s.options.onInvalidHandoff !== 'retry' || s.invalidHandoffs >= s.options.maxInvalidHandoffRetries)
        return { kind: 'fail', error };
      const toolName = from?.handoffTool?.name ?? HANDOFF_TOOL_NAME;
      return {
        kind: 'retry',
        message: invalidTargetAnswer(error.message, toolName, allowed),
        event: { type: 'invalid_handoff_answered' },
      };
    }
    if (s.chain.length >= s.options.maxHandoffs) {
      const limit = s.options.maxHandoffs;
      return overBudget(
        s,
        { budget: 'handoffs', limit, used: s.chain.length + 1, agent: s.agentId },
        new MaxHandoffsExceededError(limit, s.chain, { from: h.from, to: h.to }),
      );
    }
    return CONTINUE;
  },
};
