/**
 * The run options of a chain's controls: its budgets (a tier, tokens, cost, agents, a deadline)
 * and what happens when one is used up, loop detection, circuit breakers and guardrail feedback.
 * Their descriptors take their place in `RUN_OPTIONS` (options.ts), which derives the option types,
 * checks and defaults from them.
 *
 * Workflow-safe: no I/O.
 */
import { type Check, duration, durationMs, integer, number, oneOf, shown } from './check';
import { BUDGET_TIERS, type BudgetTier } from './controls';
import { option } from './optionDescriptor';

const deadlineCheck: Check = (v, key) =>
  durationMs(v) !== undefined ||
  (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(v) && !Number.isNaN(Date.parse(v)))
    ? []
    : [
        `"${key}" must be a duration from the start such as "10 minutes", or an ISO 8601 time such as "2026-01-31T17:00:00Z", got ${shown(v)}`,
      ];

/** The descriptors of the control options, in the order `RUN_OPTIONS` lists them. */
export const CONTROL_OPTIONS = {
  /**
   * A budget tier of the v4.1 protocol: presets of `maxHandoffs`, `maxTokens` and `maxAgents`
   * (`simple`: 0 / 10,000 / 1, `medium`: 2 / 25,000 / 3, `complex`: 5 / 150,000 / 5); options
   * given beside it win.
   */
  budget: option<BudgetTier | undefined>({
    default: undefined,
    check: oneOf(Object.keys(BUDGET_TIERS)),
    doc: 'a budget tier: simple, medium or complex',
  }),
  /** Tokens (input and output) the whole chain may use, its specialists included; 0 for no limit. @default 0 */
  maxTokens: option<number>({
    default: 0,
    check: integer(0, 1_000_000_000),
    doc: 'tokens the chain may use, specialists included (0: no limit)',
  }),
  /**
   * Money the chain may spend on model calls, its specialists included, in the currency of the team's
   * prices (`0.5` is half a dollar under USD prices); 0 for no limit. Checked before each model call
   * against the call's worst case and after it (see docs/economics.md); a model without a price fails
   * the run with `PriceUnknownError`. @default 0
   */
  maxCost: option<number>({
    default: 0,
    check: number(0, 1e9),
    doc: 'money the chain may spend on model calls, specialists included (0: no limit)',
  }),
  /** Distinct agents that may work in the chain, specialists included; 0 for no limit. @default 0 */
  maxAgents: option<number>({
    default: 0,
    check: integer(0),
    doc: 'distinct agents that may work in the chain (0: no limit)',
  }),
  /** When the chain must be done: a duration from its start (`"10 minutes"`) or an ISO 8601 time. */
  deadline: option<string | number | undefined>({
    default: undefined,
    check: deadlineCheck,
    doc: 'a duration from the start or an ISO 8601 time',
  }),
  /**
   * A budget used up (`maxHandoffs`, `maxTurns`, `maxTokens`, `maxAgents`, `deadline`, `maxCost`): fail the run
   * with `BudgetExceededError`, or give the current agent one last turn without tools to answer.
   * @default "fail"
   */
  onBudgetExceeded: option<'fail' | 'final_answer'>({
    default: 'fail',
    check: oneOf(['fail', 'final_answer']),
    doc: 'fail, or give the agent one last turn to answer',
  }),
  /**
   * Loop detection: a handoff with the same from, to and context (message, input, state update) as
   * one of the last `loopWindow` handoffs is a loop, and so is A → B → A → B with no tool run or
   * delegation answered in between; 0 switches detection off. @default 3
   */
  loopWindow: option<number>({ default: 3, check: integer(0, 100), doc: 'handoffs looked back at for loops (0: off)' }),
  /** A loop: fail the run with `HandoffLoopDetectedError`, or refuse the handoff and tell the model (at most `maxLoopRefusals` times). @default "fail" */
  onLoop: option<'fail' | 'refuse'>({
    default: 'fail',
    check: oneOf(['fail', 'refuse']),
    doc: 'fail or refuse a looping handoff',
  }),
  /** With `onLoop: 'refuse'`: loops refused before the run fails. @default 2 */
  maxLoopRefusals: option<number>({
    default: 2,
    check: integer(0, 10),
    doc: 'looping handoffs refused before failing',
  }),
  /**
   * Circuit breaker per target agent: this many failures (a failed specialist, a failed tool call, a
   * guardrail trip) since its last success open it, and handoffs and delegations to it are refused
   * until `breakerCooldown` has passed; 0 switches breakers off. @default 3
   */
  breakerThreshold: option<number>({
    default: 3,
    check: integer(0, 1000),
    doc: 'failures of a target that open its breaker (0: off)',
  }),
  /** How long an open breaker refuses its target before letting one try through. @default "1 minute" */
  breakerCooldown: option<string | number>({
    default: '1 minute',
    check: duration,
    doc: 'how long an open breaker refuses its target',
  }),
  /** Guardrail trips with `onTrip: 'feedback'` sent back to the agent before the run fails. @default 2 */
  maxGuardrailRetries: option<number>({
    default: 2,
    check: integer(0, 10),
    doc: 'guardrail trips sent back as feedback before failing',
  }),
};
