/**
 * The controls' part of the chain state: counters, circuit breakers, progress between handoffs,
 * usage per agent. Folded by the chain's reducer (`state.ts`), so a replay rebuilds it from the
 * events history recorded; and what it says that the steps and the guards both read (until when a
 * breaker is open, when the chain must be done).
 *
 * Pure: no Temporal API, no I/O.
 */
import { durationMs } from '../../src/common/check';
import type { ControlCounters, ControlEvent, ControlState } from '../../src/common/controls';
import { addCost } from '../../src/common/economics/prices';
import type { Usage } from '../../src/common/run';
import type { ChainState } from '../../src/common/state';

export const NO_USAGE: Usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0, modelCalls: 0, toolCalls: 0 };

/** The controls of a chain that starts at `startedAt` (workflow time, ms). */
export function initialControls(startedAt: number): ControlState {
  return {
    counters: {},
    breakers: {},
    startedAt,
    progressAtHandoff: [],
    progress: 0,
    loopRefusals: 0,
    usageByAgent: {},
  };
}

/** The controls with `event` applied at workflow time `at`. */
export function reduceControl(c: ControlState, event: ControlEvent, at: number): ControlState {
  const counted = { ...c, counters: count(c.counters, event.kind) };
  switch (event.kind) {
    case 'loop_detected':
      return event.refused ? { ...counted, loopRefusals: c.loopRefusals + 1 } : counted;
    case 'target_failed': {
      const b = c.breakers[event.agent] ?? { state: 'closed', failures: 0 };
      return { ...counted, breakers: { ...c.breakers, [event.agent]: { ...b, failures: b.failures + 1 } } };
    }
    case 'breaker_opened':
      return {
        ...counted,
        breakers: { ...c.breakers, [event.agent]: { state: 'open', failures: event.failures, openedAt: at } },
      };
    case 'breaker_half_open': {
      const b = c.breakers[event.agent] ?? { state: 'closed', failures: 0 };
      return { ...counted, breakers: { ...c.breakers, [event.agent]: { ...b, state: 'half_open' } } };
    }
    case 'breaker_closed':
      return { ...counted, breakers: { ...c.breakers, [event.agent]: { state: 'closed', failures: 0 } } };
    case 'guardrail_tripped': {
      if (event.onTrip !== 'feedback') return counted;
      const key = `${event.agent}/${event.stage}/${event.guardrail}`;
      return {
        ...counted,
        guardrailFeedback: { ...c.guardrailFeedback, [key]: (c.guardrailFeedback?.[key] ?? 0) + 1 },
      };
    }
    case 'budget_exceeded': {
      const { kind: _k, onBudgetExceeded, ...exceeded } = event;
      return onBudgetExceeded === 'final_answer' ? { ...counted, finalTurn: exceeded } : counted;
    }
    default:
      return counted;
  }
}

/** The counters with one more `kind`. */
export function count(counters: ControlCounters, kind: keyof ControlCounters): ControlCounters {
  return { ...counters, [kind]: (counters[kind] ?? 0) + 1 };
}

/** `usage` with `more` added; `calls` model calls more (1 for a model answer, the specialist's count for a delegation). */
export function addTokens(
  u: Usage,
  more: Pick<Usage, 'inputTokens' | 'outputTokens'> & Partial<Usage>,
  calls = 1,
): Usage {
  const cost = u.cost || more.cost ? addCost(u.cost, more.cost, calls) : undefined;
  return {
    inputTokens: u.inputTokens + more.inputTokens,
    outputTokens: u.outputTokens + more.outputTokens,
    totalTokens: u.totalTokens + more.inputTokens + more.outputTokens,
    modelCalls: u.modelCalls + calls,
    toolCalls: u.toolCalls + (more.toolCalls ?? 0),
    ...(cost ? { cost } : {}),
  };
}

/** Usage per agent with `usage` of `agent` added. */
export function addAgentUsage(
  byAgent: Record<string, Usage>,
  agent: string,
  usage: Pick<Usage, 'inputTokens' | 'outputTokens'> & Partial<Usage>,
  calls = 1,
): Record<string, Usage> {
  return { ...byAgent, [agent]: addTokens(byAgent[agent] ?? NO_USAGE, usage, calls) };
}

/** When `agent`'s open breaker lets a try through (workflow time, ms), or `undefined` when it is not open. */
export function breakerOpenUntil(s: ChainState, agent: string): number | undefined {
  const b = s.controls?.breakers[agent];
  if (!b || b.state !== 'open' || b.openedAt === undefined || s.options.breakerThreshold <= 0) return undefined;
  return b.openedAt + (durationMs(s.options.breakerCooldown) ?? 60_000);
}

/** When the chain must be done (workflow time, ms), if it has a deadline. */
export function deadlineOf(s: ChainState): number | undefined {
  const d = s.options.deadline;
  if (d === undefined || !s.controls) return undefined;
  const ms = durationMs(d);
  return ms !== undefined ? s.controls.startedAt + ms : Date.parse(String(d));
}
