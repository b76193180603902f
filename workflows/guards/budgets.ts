/**
 * Budgets: tokens across the chain and its specialists (`maxTokens`), distinct agents
 * (`maxAgents`) and a wall-clock `deadline`, besides the handoff and turn limits (`limits.ts`).
 * A budget that runs out fails the run with `BudgetExceededError`, or under
 * `onBudgetExceeded: 'final_answer'` gives the current agent one last turn without tools.
 */
import type { BudgetExceeded } from '../../src/common/controls';
import { BudgetExceededError } from '../../src/common/budgetErrors';
import type { BatonError } from '../../src/common/errors';
import type { ChainState } from '../../src/common/state';
import { deadlineOf } from '../chain/controlState';
import { CONTINUE, type Verdict } from '../chain/verdict';
import type { Guard } from './guard';

/** The verdict on a budget that ran out: fail with `error` (a `BudgetExceededError`), or the last turn. */
export function overBudget(
  s: ChainState,
  exceeded: BudgetExceeded,
  error: BatonError = new BudgetExceededError(exceeded),
): Verdict {
  const policy = s.controls ? s.options.onBudgetExceeded : 'fail';
  const control = { kind: 'budget_exceeded' as const, onBudgetExceeded: policy, ...exceeded };
  if (policy === 'fail' || !s.controls) return { kind: 'fail', error, ...(s.controls ? { control } : {}) };
  return { kind: 'last_turn', control, message: lastTurnMessage(exceeded) };
}

function lastTurnMessage(e: BudgetExceeded): string {
  const what =
    e.budget === 'deadline'
      ? 'its time'
      : e.budget === 'cost'
        ? 'its cost budget'
        : `its ${e.budget} budget (${e.used} of ${e.limit})`;
  return `The chain has used up ${what}. No more tools, handoffs or delegations: answer the request now with what you have.`;
}

/** The answer to a handoff or delegation asked for after the budget ran out in the same turn. */
function spent(s: ChainState, what: string): Verdict {
  return {
    kind: 'retry',
    message: `Not ${what}: the chain's ${s.controls!.finalTurn!.budget} budget is used up. Answer the request now with what you have.`,
  };
}

/** The agents that worked in the chain so far, specialists included. */
export function agentsSoFar(s: ChainState): Set<string> {
  return new Set([
    s.chain[0]?.from ?? s.agentId,
    ...s.chain.map((h) => h.to),
    ...Object.keys(s.controls?.usageByAgent ?? {}),
  ]);
}

/** Tokens, agents and the deadline, in chains started with controls; `now` is workflow time. */
export function budgetGuard(now: () => number): Guard {
  const tokens = (s: ChainState): Verdict | undefined =>
    s.options.maxTokens > 0 && s.usage.totalTokens >= s.options.maxTokens
      ? overBudget(s, { budget: 'tokens', limit: s.options.maxTokens, used: s.usage.totalTokens, agent: s.agentId })
      : undefined;
  const deadline = (s: ChainState): Verdict | undefined => {
    const at = deadlineOf(s);
    const t = now();
    return at !== undefined && t >= at
      ? overBudget(s, {
          budget: 'deadline',
          limit: at - s.controls!.startedAt,
          used: t - s.controls!.startedAt,
          agent: s.agentId,
        })
      : undefined;
  };
  const agents = (s: ChainState, to: string): Verdict | undefined => {
    const seen = agentsSoFar(s);
    return s.options.maxAgents > 0 && !seen.has(to) && seen.size >= s.options.maxAgents
      ? overBudget(s, { budget: 'agents', limit: s.options.maxAgents, used: seen.size, agent: s.agentId })
      : undefined;
  };
  return {
    name: 'budgets',
    beforeModelCall(s) {
      if (!s.controls || s.controls.finalTurn) return CONTINUE;
      return tokens(s) ?? deadline(s) ?? CONTINUE;
    },
    beforeHandoff(s, h) {
      if (!s.controls) return CONTINUE;
      if (s.controls.finalTurn) return spent(s, 'handed off');
      return agents(s, h.to) ?? deadline(s) ?? CONTINUE;
    },
    beforeDelegation(s, to) {
      if (!s.controls) return CONTINUE;
      if (s.controls.finalTurn) return spent(s, 'delegated');
      return agents(s, to) ?? tokens(s) ?? deadline(s) ?? CONTINUE;
    },
  };
}
