/**
 * Circuit breakers per target agent: a target whose breaker is open is refused to handoffs and
 * delegations, with a tool result saying until when, for `breakerCooldown` after it opened
 * (workflow time, so the cooldown survives restarts and replays the same). The breaker's state
 * moves in `chain/breakers.ts`.
 */
import { durationMs } from '../../src/common/check';
import type { ChainState } from '../../src/common/state';
import { CONTINUE, type Guard, type Verdict } from './guard';

/** When `agent`'s open breaker lets a try through (ms), or `undefined` when it is not open. */
export function breakerOpenUntil(s: ChainState, agent: string): number | undefined {
  const b = s.controls?.breakers[agent];
  if (!b || b.state !== 'open' || b.openedAt === undefined || s.options.breakerThreshold <= 0) return undefined;
  return b.openedAt + (durationMs(s.options.breakerCooldown) ?? 60_000);
}

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
