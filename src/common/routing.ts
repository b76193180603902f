/**
 * Several specialists of one capability: how capability routing picks among those that match a
 * request equally well — the first in team order, round robin, the least loaded (chains working
 * at each now), or the best recent success rate — and the decision as history records it, with
 * the figures it used. Plain JSON, pure; workflow-safe (no I/O).
 */
import type { TeamNeed } from './version';

/** How capability routing picks among specialists that match a request equally well. */
export const RoutingStrategy = {
  /** The first in team order (the one with the most matching capabilities wins before that). */
  BEST_MATCH: 'best_match',
  /** In turn: each chain starts at a place given by its root chain's id, and moves one on per request of that kind. */
  ROUND_ROBIN: 'round_robin',
  /** The one with the fewest chains working at it now (delegations and handoffs in flight, from visibility). */
  LEAST_LOADED: 'least_loaded',
  /** The one whose chains ended well most often in the last hour (from visibility; a specialist with none counts as 1/2). */
  SUCCESS_RATE: 'success_rate',
} as const;
export type RoutingStrategy = (typeof RoutingStrategy)[keyof typeof RoutingStrategy];

/** The strategies' names, for checks and help. */
export const ROUTING_STRATEGIES: readonly RoutingStrategy[] = Object.values(RoutingStrategy);

/** How far back the success rate looks. */
export const SUCCESS_WINDOW_MS = 3_600_000;

/** Input of the `specialistFigures` activity. */
export interface SpecialistFiguresInput {
  /** The agent asking. */
  agentId: string;
  candidates: string[];
  /** Read the recent outcomes too (for `success_rate`). */
  recent: boolean;
  /** What of the run's team this call needs from the worker that runs it. */
  team?: TeamNeed;
}

/** What the `specialistFigures` activity read from visibility. */
export interface SpecialistFigures {
  /** Chains running with each candidate working in them now. */
  inFlight: Record<string, number>;
  /** Chains that ended with each candidate working, in the last `SUCCESS_WINDOW_MS`. */
  recent?: Record<string, { completed: number; failed: number }>;
  /** When they were read, ISO 8601. */
  readAt: string;
}

/** A routing decision among several specialists, as history records it (the `batonApprovalEvent` memo, `type: 'routing_decided'`). */
export interface RoutingDecision {
  type: 'routing_decided';
  /** The agent asking. */
  from: string;
  /** The kind of specialist it asked for. */
  specialistType: string;
  strategy: RoutingStrategy;
  /** The specialists that matched equally well, in team order. */
  candidates: string[];
  chosen: string;
  /** Why, in words: `fewest in flight (refunds-a 2, refunds-b 0)`. */
  reason: string;
  /** The figures the decision used. */
  figures: {
    turn?: number;
    offset?: number;
    inFlight?: Record<string, number>;
    successRate?: Record<string, number>;
    readAt?: string;
    unavailable?: string;
  };
}

/** How many routing requests of a kind a chain has decided, by kind (the round robin's place). */
export type RoutingCounts = Record<string, number>;

/** A 32-bit FNV-1a hash of a text. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** The specialist a strategy picks among `candidates` (two or more), with its figures and why. */
export function pickSpecialist(
  strategy: RoutingStrategy,
  candidates: readonly string[],
  context: { root: string; kind: string; turn: number; figures?: SpecialistFigures; unavailable?: string },
): Pick<RoutingDecision, 'chosen' | 'reason' | 'figures'> {
  const first = candidates[0]!;
  if (strategy === RoutingStrategy.BEST_MATCH) return { chosen: first, reason: 'first in team order', figures: {} };
  if (strategy === RoutingStrategy.ROUND_ROBIN) {
    const offset = fnv1a(`${context.root}\n${context.kind}`) % candidates.length;
    const chosen = candidates[(offset + context.turn) % candidates.length]!;
    return {
      chosen,
      reason: `in turn: request ${context.turn + 1} of its kind in this chain, starting at ${candidates[offset]}`,
      figures: { turn: context.turn, offset },
    };
  }
  const f = context.figures;
  if (!f)
    return {
      chosen: first,
      reason: `first in team order: the figures could not be read (${context.unavailable ?? 'unknown'})`,
      figures: { unavailable: context.unavailable ?? 'unknown' },
    };
  const load = (id: string) => f.inFlight[id] ?? 0;
  if (strategy === RoutingStrategy.LEAST_LOADED) {
    const chosen = [...candidates].sort(
      (a, b) => load(a) - load(b) || candidates.indexOf(a) - candidates.indexOf(b),
    )[0]!;
    return {
      chosen,
      reason: `fewest chains in flight (${candidates.map((c) => `${c} ${load(c)}`).join(', ')})`,
      figures: { inFlight: f.inFlight, readAt: f.readAt },
    };
  }
  const rate = (id: string) => {
    const r = f.recent?.[id] ?? { completed: 0, failed: 0 };
    // Laplace's rule: a specialist with no record yet counts as 1/2, so it gets tried.
    return (r.completed + 1) / (r.completed + r.failed + 2);
  };
  const rates = Object.fromEntries(candidates.map((c) => [c, Math.round(rate(c) * 1000) / 1000]));
  const chosen = [...candidates].sort(
    (a, b) => rate(b) - rate(a) || load(a) - load(b) || candidates.indexOf(a) - candidates.indexOf(b),
  )[0]!;
  return {
    chosen,
    reason: `best success rate in the last hour (${candidates.map((c) => `${c} ${rates[c]}`).join(', ')})`,
    figures: { successRate: rates, inFlight: f.inFlight, readAt: f.readAt },
  };
}

/** The kind of a routing request, as the round robin counts it: its specialist type, trimmed and lower case. */
export function routingKind(specialistType: string): string {
  return specialistType.trim().toLowerCase();
}
