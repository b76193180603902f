/**
 * The errors of a run whose budget was used up ({@link BudgetExceededError}: handoffs, turns,
 * tokens, agents, deadline, cost), model behaviour by blame like the rest of `errors.ts`, with the
 * messages that say what was used of what.
 *
 * Workflow-safe: no I/O.
 */
import type { BudgetExceeded, BudgetName } from './controls';
import { DEFAULT_CURRENCY, formatCost } from './economics/prices';
import { ModelBehaviorError } from './errors';
import type { HandoffRecord } from './run';

/**
 * A budget of the run was used up: `budget` names it (`handoffs`, `turns`, `tokens`, `agents`,
 * `deadline`, `cost`), with its `limit`, what was `used` (milliseconds for `deadline`) and the agent
 * working then. `MaxHandoffsExceededError` and `MaxTurnsExceededError` are the first two.
 */
export class BudgetExceededError<D extends BudgetExceeded = BudgetExceeded> extends ModelBehaviorError<D> {
  declare readonly budget: BudgetName;
  declare readonly limit: number;
  declare readonly used: number;
  declare readonly agent: string;
  constructor(details: D, message = budgetMessage(details)) {
    super(message, details);
  }
}

function budgetMessage(d: BudgetExceeded): string {
  if (d.budget === 'deadline' && d.limit <= 0)
    return `The chain ran out of its deadline budget while "${d.agent}" was working (its deadline had passed ${Math.round(-d.limit / 1000)} s before it started)`;
  if (d.budget === 'cost') return costBudgetMessage(d);
  const unit =
    d.budget === 'deadline'
      ? ` (${Math.round(d.used / 1000)} s used of ${Math.round(d.limit / 1000)} s)`
      : ` (${d.used} used of ${d.limit})`;
  return `The chain ran out of its ${d.budget} budget while "${d.agent}" was working${unit}`;
}

function costBudgetMessage(d: BudgetExceeded): string {
  const money = (micros: number) => formatCost({ currency: d.currency ?? DEFAULT_CURRENCY, micros, unpricedCalls: 0 });
  const whose = d.scope === 'conversation' ? "the conversation's" : 'its';
  const next = d.needed !== undefined ? `; the next model call could cost up to ${money(d.needed)}` : '';
  return `The chain ran out of ${whose} cost budget while "${d.agent}" was working (${money(d.used)} spent of ${money(d.limit)}${next})`;
}

/** The run asked for more handoffs than `maxHandoffs` allows; `used` counts the handoff refused. */
export class MaxHandoffsExceededError extends BudgetExceededError<
  BudgetExceeded & { chain: HandoffRecord[]; attempted?: { from: string; to: string } }
> {
  declare readonly chain: HandoffRecord[];
  /** The handoff that was refused, when known. */
  declare readonly attempted?: { from: string; to: string };
  constructor(limit: number, chain: HandoffRecord[], attempted?: { from: string; to: string }) {
    const agent = attempted?.from ?? chain.at(-1)?.to ?? '';
    super(
      {
        budget: 'handoffs',
        limit,
        used: chain.length + (attempted ? 1 : 0),
        agent,
        chain,
        ...(attempted ? { attempted } : {}),
      },
      `Max handoffs (${limit}) exceeded. Chain: ${chainPath(chain, attempted)}`,
    );
  }
}

/** One activation of an agent used more model turns than `maxTurns` allows. */
export class MaxTurnsExceededError extends BudgetExceededError {
  constructor(agent: string, limit: number) {
    super(
      { budget: 'turns', limit, used: limit, agent },
      `Agent "${agent}" exceeded its maximum of ${limit} model turns without answering or handing off`,
    );
  }
}

/** The path `a → b → c` of a chain, with the refused hop when given. */
export function chainPath(chain: HandoffRecord[], attempted?: { from: string; to: string }): string {
  const hops = chain.map((h) => h.to);
  if (attempted) hops.push(attempted.to);
  const first = chain[0]?.from ?? attempted?.from;
  return first === undefined ? '(no handoffs)' : [first, ...hops].join(' → ');
}
