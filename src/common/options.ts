/**
 * Run options: one descriptor per option (default, check, doc), from which the option types,
 * validation, resolution and the list of valid keys derive. Adding an option is one entry here.
 * Shared by the client (refuse before starting) and the workflow (fail a run another program
 * started with bad JSON).
 *
 * Workflow-safe: no I/O.
 */
import type { ApprovalRule } from './approvals';
import { approvalRuleCheck } from './approvalPolicy';
import { approvalTimingCheck, type ApprovalTiming } from './approvalTiming';
import { type ApproverKey, approverKeysCheck } from './signatures/keys';
import { BUDGET_TIERS, type BudgetTier } from './controls';
import { ROUTING_STRATEGIES, type RoutingStrategy } from './routing';
import {
  arrayOf,
  boolean,
  type Check,
  duration,
  durationAtLeast,
  durationMs,
  integer,
  isRecord,
  number,
  oneOf,
  shape,
  shown,
} from './check';
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

/** Retry settings for model and tool activities. */
export interface RetryOptions {
  /** @default "1 second" */
  initialInterval?: string | number;
  /** @default 2 */
  backoffCoefficient?: number;
  /** Never below `initialInterval`. @default "1 minute" */
  maximumInterval?: string | number;
  /** Attempts including the first. @default 5 */
  maximumAttempts?: number;
}

/** Retry policy of model and tool activities unless the run overrides it. */
export const DEFAULT_RETRY: Required<RetryOptions> = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '1 minute',
  maximumAttempts: 5,
};

/** Fewest events after which `continueAsNewAfterEvents` may continue a run (0 switches it off). */
export const MIN_CONTINUE_AS_NEW_EVENTS = 20;

const retryCheck: Check = (v, key) => {
  const problems = shape(
    {
      initialInterval: duration,
      backoffCoefficient: number(1, 100),
      maximumInterval: duration,
      maximumAttempts: integer(1, 1000),
    },
    ['initialInterval', 'backoffCoefficient', 'maximumInterval', 'maximumAttempts'],
  )(v, key);
  if (problems.length > 0 || !isRecord(v)) return problems;
  const initial = durationMs(v.initialInterval ?? DEFAULT_RETRY.initialInterval)!;
  const maximum = durationMs(v.maximumInterval ?? DEFAULT_RETRY.maximumInterval)!;
  return maximum < initial
    ? [
        `"${key}.maximumInterval" (${shown(v.maximumInterval ?? DEFAULT_RETRY.maximumInterval)}) must not be below "${key}.initialInterval" (${shown(v.initialInterval ?? DEFAULT_RETRY.initialInterval)})`,
      ]
    : [];
};

/** Timeouts of model and tool calls: a second at least, or no call could ever finish. */
const callTimeout = durationAtLeast(1000, '1 second');

const deadlineCheck: Check = (v, key) =>
  durationMs(v) !== undefined ||
  (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(v) && !Number.isNaN(Date.parse(v)))
    ? []
    : [
        `"${key}" must be a duration from the start such as "10 minutes", or an ISO 8601 time such as "2026-01-31T17:00:00Z", got ${shown(v)}`,
      ];

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
  /**
   * Per-attempt timeout of a model call, e.g. `"2 minutes"` or milliseconds. Long enough for a long
   * answer streamed by a slow local server: a server that stops sending is caught sooner, by the
   * model's own `timeoutMs`, and a dead worker by `heartbeatTimeout`. @default "10 minutes"
   */
  modelTimeout: option<string | number>({
    default: '10 minutes',
    check: callTimeout,
    doc: 'per-attempt timeout of a model call',
  }),
  /** Per-attempt timeout of a tool call. @default "5 minutes" */
  toolTimeout: option<string | number>({
    default: '5 minutes',
    check: callTimeout,
    doc: 'per-attempt timeout of a tool call',
  }),
  /**
   * How long a model or tool call may go without a heartbeat before Temporal retries it elsewhere:
   * how fast a call on a crashed worker is retried. @default "10 seconds"
   */
  heartbeatTimeout: option<string | number>({
    default: '3 seconds',
    check: callTimeout,
    doc: 'retry a call on a dead worker after this',
  }),
  /**
   * How many times a model or tool call is started again after its worker was lost, beside its
   * `retry` budget: an attempt whose heartbeats stop for `heartbeatTimeout` (the worker crashed,
   * was killed or froze) ends that start of the call without spending an attempt, and the call
   * starts again with the same input, idempotency key and last heartbeat details, and its whole
   * `retry` budget for errors it throws. Once these restarts are used up, a lost worker counts as an
   * attempt like an error. 0: every lost worker counts as an attempt. Local model calls are not
   * affected: a lost worker loses their workflow task, and the next one starts the call afresh.
   * @default 10
   */
  lostWorkerRetries: option<number>({
    default: 10,
    check: integer(0, 1000),
    doc: 'restarts of a call after lost workers, beside its retries',
  }),
  /**
   * Where model calls run: `remote`, as activities any worker may pick up (heartbeats, a timeout per
   * attempt, retried on another worker after a crash); or `local`, as local activities in the
   * worker running the chain, which skip a round trip through the server per call (about 5 ms a
   * step instead of 25-50) but must finish within the workflow task timeout (10 s) or be retried
   * in a new task, cannot heartbeat, and count their retries per workflow task. An agent's own
   * `modelActivity` wins. @default "remote"
   */
  modelActivity: option<'remote' | 'local'>({
    default: 'remote',
    check: oneOf(['remote', 'local']),
    doc: 'model calls as remote or local activities',
  }),
  /**
   * How long a step may wait for a worker that has what the chain's team needs (an agent, a tool
   * with the same parameters, a model provider) while the workers asked lack it, from the first
   * refusal: the step is tried again on any worker meanwhile, then the chain fails with
   * `TeamMismatchError`. @default "10 minutes"
   */
  teamMismatchTimeout: option<string | number>({
    default: '10 minutes',
    check: durationAtLeast(1000, '1 second'),
    doc: 'wait this long for a worker that has the team a step needs',
  }),
  /** Retry policy of model and tool calls. */
  retry: option<RetryOptions, Required<RetryOptions>>({
    default: DEFAULT_RETRY,
    check: retryCheck,
    doc: 'retry policy of model and tool calls',
    resolve: (r) => ({ ...DEFAULT_RETRY, ...r }),
  }),
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
