/**
 * The run options of a chain's model and tool calls: their per-attempt timeouts, heartbeats, the
 * restarts after a lost worker, where model calls run, how long a step waits for a worker with its
 * team, and the retry policy. Their descriptors take their place in `RUN_OPTIONS` (options.ts),
 * which derives the option types, checks and defaults from them.
 *
 * Workflow-safe: no I/O.
 */
import {
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
import { option } from './optionDescriptor';

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

/** The descriptors of the call options, in the order `RUN_OPTIONS` lists them. */
export const CALL_OPTIONS = {
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
   * how fast a call on a crashed worker is retried. @default "3 seconds"
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
   * step instead of 25-50) but hold the chain's workflow task while they run (a call past 6.4 s, 80%
   * of the 8 s workflow task timeout, has the worker complete that task and wait in a new one, every
   * 6.4 s), cannot heartbeat, and count their retries per workflow task. An agent's own
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
};
