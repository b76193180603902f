/**
 * Circuit breakers per target agent: a target whose breaker is open is refused to handoffs and
 * delegations, with a tool result saying until when, for `breakerCooldown` after it opened
 * (workflow time, so the cooldown survives restarts and replays the same). The breaker's state
 * moves in `chain/controls.ts`.
 */
import type { ChainState } from '../../src/common/state';
import { breakerOpenUntil } from '../chain/controlState';
import { CONTINUE, type Verdict } from '../chain/verdict';
import type { Guard } from './guard';

export function breakerGuard(now: () => number): Guard {
  const check = (s: ChainState, from: string, to: string, what: string): Verdict => {
    const until = breakerOpenUntil(s, to);
    if (until === undefined || now() >= until) return CONTINUE;
    const b = s.controls!.breakers[to]!;
    const at = new Date(until).toISOString();
    return {
      kind: 'retry',
      control: { kind: 'breaker_refused', agent: to, from, until: at },
      message: `Not ${what}: ${to} is unavailable after ${b.failures} failures (its circuit breaker is open until ${at}). Choose another agent, or answer with what you have.`,
    };
  };
  return {
    name: 'breakers',
    beforeHandoff: (s, h) => check(s, h.from, h.to, 'handed off'),
    beforeDelegation: (s, to) => check(s, s.agentId, to, 'delegated'),
  };
}
