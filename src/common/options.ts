/**
 * Run options: one descriptor per option (default, check, doc), from which the option types,
 * validation, resolution and the list of valid keys derive. Adding an option is one entry here, or
 * in the table of its kind that `RUN_OPTIONS` takes in: the options of model and tool calls
 * (callRunOptions.ts) and of the chain's controls (controlOptions.ts).
 * Shared by the client (refuse before starting) and the workflow (fail a run another program
 * started with bad JSON).
 *
 * Workflow-safe: no I/O.
 */
import type { ApprovalRule } from './approvals';
import { approvalRuleCheck } from './approvalPolicy';
import { approvalTimingCheck, type ApprovalTiming } from './approvalTiming';
import { CALL_OPTIONS } from './callRunOptions';
import { type ApproverKey, approverKeysCheck } from './signatures/keys';
import { BUDGET_TIERS } from './controls';
import { CONTROL_OPTIONS } from './controlOptions';
import { ROUTING_STRATEGIES, type RoutingStrategy } from './routing';
import { arrayOf, boolean, type Check, integer, isRecord, oneOf, shown } from './check';
import { type Descriptor, type InputOf, option, type ResolvedOf } from './optionDescriptor';
import { priorityCheck, type RunPriority } from './priority';
import { tenantCheck } from './tenant';

/** What to do when a model names a handoff target that does not exist or is not allowed. */
export const InvalidHandoffPolicy = {
  /** Fail the run with `HandoffTargetNotFoundError`. */
  FAIL: 'fail',
  /** Answer the model with a tool error listing the valid targets, a bounded number of times. */
  RETRY: 'retry',
} as const;
export type InvalidHandoffPolicy = (typeof InvalidHandoffPolicy)[keyof typeof InvalidHandoffPolicy];

/** What to do when a model ends its turn with an empty answer and no tool call. */
export const EmptyOutputPolicy = {
  /** Tell the model its answer was empty and ask once more; a second empty answer fails with `EmptyOutputError`. */
  RETRY: 'retry',
  /** Accept `""` as the answer. */
  ACCEPT: 'accept',
} as const;
export type EmptyOutputPolicy = (typeof EmptyOutputPolicy)[keyof typeof EmptyOutputPolicy];

/** Fewest events after which `continueAsNewAfterEvents` may continue a run (0 switches it off). */
export const MIN_CONTINUE_AS_NEW_EVENTS = 20;

const continueAsNewCheck: Check = (v, key) =>
  v === 0
    ? []
    : integer(MIN_CONTINUE_AS_NEW_EVENTS, 50_000)(v, key).map(
        (p) => `${p} (or 0 to continue only when Temporal suggests it)`,
      );

/**
 * Every run option. Each field is optional in {@link RunOptions}; {@link resolveRunOptions} fills
 * the defaults.
 */
export const RUN_OPTIONS = {
  /** Handoffs allowed in the run. @default 10 */
  maxHandoffs: option<number>({ default: 10, check: integer(0), doc: 'handoffs allowed in the run' }),
  /** Model turns allowed in one activation of an agent. @default 10 */
  maxTurns: option<number>({
    default: 10,
    check: integer(1),
    doc: 'model turns allowed in one activation of an agent',
  }),
  /** A handoff to an unknown or disallowed target: fail the run, or tell the model and let it retry. @default "fail" */
  onInvalidHandoff: option<InvalidHandoffPolicy>({
    default: 'fail',
    check: oneOf(['fail', 'retry']),
    doc: 'fail or retry an invalid handoff target',
  }),
  /** With `onInvalidHandoff: 'retry'`: invalid handoffs answered before the run fails. @default 2 */
  maxInvalidHandoffRetries: option<number>({
    default: 2,
    check: integer(0),
    doc: 'invalid handoffs answered before failing',
  }),
  /** An empty final answer: ask the model once more, then fail with `EmptyOutputError`; or accept it. @default "retry" */
  onEmptyOutput: option<EmptyOutputPolicy>({
    default: 'retry',
    check: oneOf(['retry', 'accept']),
    doc: 'retry once or accept an empty answer',
  }),
  /** Final answers that do not match the agent's `outputType` sent back to the model before the run fails. @default 2 */
  maxOutputRetries: option<number>({
    default: 2,
    check: integer(0, 10),
    doc: 'invalid structured answers sent back before failing',
  }),
  /** How deep specialists may delegate further (a specialist of a specialist is depth 2). @default 3 */
  maxDelegationDepth: option<number>({ default: 3, check: integer(1, 10), doc: 'how deep delegations may nest' }),
  /**
   * Capability routing among specialists that match a request equally well: `best_match` (the first
   * in team order), `round_robin`, `least_loaded` (fewest chains in flight) or `success_rate` (best
   * recent success); each decision is recorded with its figures. @default "best_match"
   */
  routingStrategy: option<RoutingStrategy>({
    default: 'best_match',
    check: oneOf(ROUTING_STRATEGIES),
    doc: 'how capability routing picks among equal specialists',
  }),
  /** Specialists of one turn that run at once; the others start as these finish. @default 4 */
  maxParallelDelegations: option<number>({
    default: 4,
    check: integer(1, 100),
    doc: 'delegations of one turn running at once',
  }),
  /**
   * Several delegations in one turn: `best_effort` answers each with its result or failure; `all`
   * tells every one of them the joined delegation failed when any failed. @default "best_effort"
   */
  delegationJoin: option<'all' | 'best_effort'>({
    default: 'best_effort',
    check: oneOf(['all', 'best_effort']),
    doc: 'how delegations of one turn join',
  }),
  ...CALL_OPTIONS,
  /** Approval rules for this run; they take precedence over the team's. */
  approvals: option<ApprovalRule[]>({
    default: [],
    check: arrayOf(
      approvalRuleCheck,
      'approval rules {to, from?, required?, requireSignature?, approvers?, timeout?, onTimeout?, dueIn?, remindEvery?, escalation?}',
    ),
    doc: 'approval rules for this run',
  }),
  /**
   * This run's approval timing — `dueIn` (SLA), `remindEvery`, `escalation` — for every approval
   * whose own policy sets none; it wins over the team's `approvalPolicy` (docs/approvals.md).
   */
  approvalPolicy: option<ApprovalTiming | undefined>({
    default: undefined,
    check: approvalTimingCheck,
    doc: 'approval timing: dueIn, remindEvery, escalation',
  }),
  /** Every decision of this run (its specialists' too) must carry a valid signature (docs/signatures.md). @default false */
  requireSignature: option<boolean | undefined>({
    default: undefined,
    check: boolean,
    doc: 'every decision must be signed by a trusted key',
  }),
  /** Approvers' public keys this run trusts beside its team's (its specialists too), unless the team refuses keys named by runs. */
  approverKeys: option<ApproverKey[] | undefined>({
    default: undefined,
    check: approverKeysCheck,
    doc: "approvers' public keys this run trusts",
  }),
  ...CONTROL_OPTIONS,
  /**
   * Continue as new once the run's history has this many events (besides whenever Temporal
   * suggests it), carrying the chain's state into a fresh run. 0 means only when suggested;
   * otherwise at least 20.
   * @default 0
   */
  continueAsNewAfterEvents: option<number>({
    default: 0,
    check: continueAsNewCheck,
    doc: 'continue as new after this many events',
  }),
  /** Task priority and fairness of the run's workflow, calls and specialists (see `RunPriority`, docs/priority.md). @default none: Temporal's defaults */
  priority: option<RunPriority | undefined>({
    default: undefined,
    check: priorityCheck,
    doc: 'task priority {priorityKey, fairnessKey, fairnessWeight}',
  }),
  /**
   * The tenant the chain belongs to (docs/operating.md, Tenants): its workflow id begins `<tenant>/`,
   * its `BatonTenant` search attribute names it, its specialists belong to it, and only the tenant's
   * identities read and decide it through the service. @default none
   */
  tenant: option<string | undefined>({
    default: undefined,
    check: tenantCheck,
    doc: 'the tenant the chain belongs to (its workflow id begins "<tenant>/")',
  }),
};

/** The run options' descriptors, by name. */
type Options = typeof RUN_OPTIONS;

/** Options of one run. Every field is optional; see {@link RUN_OPTIONS} for each one and its default. */
export type RunOptions = { [K in keyof Options]?: InputOf<Options[K]> };

/** {@link RunOptions} with every default applied. */
export type ResolvedRunOptions = { [K in keyof Options]: ResolvedOf<Options[K]> };

/** The names of the run options. */
export const RUN_OPTION_KEYS = Object.keys(RUN_OPTIONS) as (keyof RunOptions)[];

/** Problems with run options, each naming the option and what would be valid. */
export function runOptionProblems(options: unknown, key = 'options'): string[] {
  if (!isRecord(options)) return [`"${key}" must be an object, got ${shown(options)}`];
  const problems = Object.keys(options)
    // Own options only: `"__proto__"` or `"toString"` is an unknown option, not one every object inherits.
    .filter((k) => !Object.hasOwn(RUN_OPTIONS, k))
    .map((k) => `unknown option "${k}" (valid: ${RUN_OPTION_KEYS.join(', ')})`);
  for (const k of RUN_OPTION_KEYS) {
    if (options[k] !== undefined) problems.push(...RUN_OPTIONS[k].check(options[k], k));
  }
  return problems;
}

/** Apply defaults to validated options. */
export function resolveRunOptions(options: RunOptions = {}): ResolvedRunOptions {
  const resolved: Record<string, unknown> = {};
  for (const k of RUN_OPTION_KEYS) {
    const d = RUN_OPTIONS[k] as unknown as Descriptor<unknown, unknown>;
    const value = options[k];
    resolved[k] = value === undefined ? structuredCopy(d.default) : d.resolve ? d.resolve(value) : value;
  }
  // A tier presets the budgets the options leave out.
  const tier = options.budget ? BUDGET_TIERS[options.budget] : undefined;
  for (const [k, v] of Object.entries(tier ?? {})) if (options[k as keyof RunOptions] === undefined) resolved[k] = v;
  return resolved as ResolvedRunOptions;
}

function structuredCopy<T>(value: T): T {
  return typeof value === 'object' && value !== null ? (JSON.parse(JSON.stringify(value)) as T) : value;
}
