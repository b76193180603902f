/**
 * baton's errors, by blame. They cross the workflow boundary as non-retryable `ApplicationFailure`s
 * whose `type` is the class name and whose single detail is {@link BatonError.details}; the client
 * turns them back into the same classes with {@link errorFromFailure}.
 *
 * Workflow-safe: no I/O.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { HandoffRecord } from './types';

/** Base class of every error baton raises. */
export class BatonError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }

  /** Plain data that travels with the failure and rebuilds the error on the client. */
  get details(): Record<string, unknown> {
    return {};
  }
}

/** A misconfiguration by the caller: bad team, bad agent, bad input or options. */
export class UserError extends BatonError {}

/** A team definition that cannot run: the message names every problem found. */
export class TeamValidationError extends UserError {
  constructor(readonly problems: string[]) {
    super(`Invalid team: ${problems.join('; ')}`);
  }
  override get details() {
    return { problems: this.problems };
  }
}

/** A run input or option that is not valid. */
export class InvalidRunInputError extends UserError {
  constructor(readonly problems: string[]) {
    super(`Invalid run input: ${problems.join('; ')}`);
  }
  override get details() {
    return { problems: this.problems };
  }
}

/** A run started on an agent the team does not have. */
export class AgentNotFoundError extends UserError {
  constructor(
    readonly agent: string,
    readonly available: string[],
  ) {
    super(`Agent "${agent}" is not registered. Available: ${available.join(', ')}`);
  }
  override get details() {
    return { agent: this.agent, available: this.available };
  }
}

/** The model did something the run cannot accept. */
export class ModelBehaviorError extends BatonError {}

/** The run asked for more handoffs than `maxHandoffs` allows. */
export class MaxHandoffsExceededError extends ModelBehaviorError {
  constructor(
    readonly limit: number,
    readonly chain: HandoffRecord[],
    /** The handoff that was refused, when known. */
    readonly attempted?: { from: string; to: string },
  ) {
    super(`Max handoffs (${limit}) exceeded. Chain: ${chainPath(chain, attempted)}`);
  }
  override get details() {
    return { limit: this.limit, chain: this.chain, attempted: this.attempted };
  }
}

/** A model asked to hand off to an agent that is not registered or not allowed for it. */
export class HandoffTargetNotFoundError extends ModelBehaviorError {
  constructor(
    readonly from: string,
    readonly to: string,
    readonly available: string[],
  ) {
    super(
      `Agent "${from}" tried to hand off to "${to}", but it is not a registered target. ` +
        `Available: ${available.length > 0 ? available.join(', ') : '(none)'}`,
    );
  }
  override get details() {
    return { from: this.from, to: this.to, available: this.available };
  }
}

/** One activation of an agent used more model turns than `maxTurns` allows. */
export class MaxTurnsExceededError extends ModelBehaviorError {
  constructor(
    readonly agent: string,
    readonly limit: number,
  ) {
    super(`Agent "${agent}" exceeded its maximum of ${limit} model turns without answering or handing off`);
  }
  override get details() {
    return { agent: this.agent, limit: this.limit };
  }
}

/** A decision on a handoff that cannot apply: unknown id, already decided, or an approver not allowed. */
export class ApprovalRefusedError extends UserError {
  constructor(
    readonly handoffId: string,
    readonly reason: string,
  ) {
    super(`Decision on handoff ${handoffId} refused: ${reason}`);
  }
  override get details() {
    return { handoffId: this.handoffId, reason: this.reason };
  }
}

/** Nobody decided a handoff in time and its policy says `onTimeout: 'fail'`. */
export class ApprovalTimeoutError extends BatonError {
  constructor(
    readonly handoffId: string,
    readonly from: string,
    readonly to: string,
    readonly timeout: string,
  ) {
    super(`Handoff ${from} → ${to} (${handoffId}) was not decided within ${timeout}`);
  }
  override get details() {
    return { handoffId: this.handoffId, from: this.from, to: this.to, timeout: this.timeout };
  }
}

/** A model endpoint refused the request in a way retrying cannot fix (400, 401, 403, 404, …). */
export class ModelRequestError extends BatonError {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
  override get details() {
    return { status: this.status };
  }
}

/** A model call that still failed after its retries. */
export class ModelCallFailedError extends BatonError {
  constructor(
    readonly agent: string,
    readonly reason: string,
  ) {
    super(`Model call of agent "${agent}" failed: ${reason}`);
  }
  override get details() {
    return { agent: this.agent, reason: this.reason };
  }
}

/** A tool that failed after its retries, or failed non-retryably. */
export class ToolExecutionError extends BatonError {
  constructor(
    readonly agent: string,
    readonly tool: string,
    readonly reason: string,
  ) {
    super(`Tool "${tool}" of agent "${agent}" failed: ${reason}`);
  }
  override get details() {
    return { agent: this.agent, tool: this.tool, reason: this.reason };
  }
}

/** A scripted model was called when it had no step and no rule left for the call. */
export class UnexpectedModelCallError extends BatonError {
  constructor(
    readonly agent: string,
    readonly callIndex: number,
    readonly lastMessage: string,
  ) {
    super(
      `Scripted model of agent "${agent}" has no step or rule for call ${callIndex + 1} ` +
        `(latest message: ${JSON.stringify(lastMessage.slice(0, 120))})`,
    );
  }
  override get details() {
    return { agent: this.agent, callIndex: this.callIndex, lastMessage: this.lastMessage };
  }
}

/** A run ended while a scripted model still had steps that were never used. */
export class UnconsumedScriptStepsError extends BatonError {
  constructor(readonly unconsumed: Record<string, number>) {
    super(
      `Scripted steps were left unused: ${Object.entries(unconsumed)
        .map(([agent, n]) => `${agent} (${n})`)
        .join(', ')}`,
    );
  }
  override get details() {
    return { unconsumed: this.unconsumed };
  }
}

function chainPath(chain: HandoffRecord[], attempted?: { from: string; to: string }): string {
  const hops = chain.map((h) => h.to);
  if (attempted) hops.push(attempted.to);
  const first = chain[0]?.from ?? attempted?.from;
  return first === undefined ? '(no handoffs)' : [first, ...hops].join(' → ');
}

type Details = Record<string, unknown>;
type Rebuild = (message: string, d: Details) => BatonError;

const str = (v: unknown) => (typeof v === 'string' ? v : String(v ?? ''));
const strs = (v: unknown) => (Array.isArray(v) ? v.map(str) : []);

const rebuilders: Record<string, Rebuild> = {
  TeamValidationError: (_m, d) => new TeamValidationError(strs(d.problems)),
  InvalidRunInputError: (_m, d) => new InvalidRunInputError(strs(d.problems)),
  AgentNotFoundError: (_m, d) => new AgentNotFoundError(str(d.agent), strs(d.available)),
  MaxHandoffsExceededError: (_m, d) =>
    new MaxHandoffsExceededError(
      Number(d.limit),
      (d.chain as HandoffRecord[]) ?? [],
      d.attempted as { from: string; to: string } | undefined,
    ),
  HandoffTargetNotFoundError: (_m, d) => new HandoffTargetNotFoundError(str(d.from), str(d.to), strs(d.available)),
  MaxTurnsExceededError: (_m, d) => new MaxTurnsExceededError(str(d.agent), Number(d.limit)),
  ModelRequestError: (m, d) => new ModelRequestError(m, typeof d.status === 'number' ? d.status : undefined),
  ModelCallFailedError: (_m, d) => new ModelCallFailedError(str(d.agent), str(d.reason)),
  ToolExecutionError: (_m, d) => new ToolExecutionError(str(d.agent), str(d.tool), str(d.reason)),
  UnexpectedModelCallError: (_m, d) =>
    new UnexpectedModelCallError(str(d.agent), Number(d.callIndex), str(d.lastMessage)),
  ApprovalRefusedError: (_m, d) => new ApprovalRefusedError(str(d.handoffId), str(d.reason)),
  ApprovalTimeoutError: (_m, d) => new ApprovalTimeoutError(str(d.handoffId), str(d.from), str(d.to), str(d.timeout)),
  UnconsumedScriptStepsError: (_m, d) => new UnconsumedScriptStepsError((d.unconsumed as Record<string, number>) ?? {}),
};

/** The names of the errors that {@link errorFromFailure} rebuilds. */
export const BATON_ERROR_TYPES: readonly string[] = Object.keys(rebuilders);

/** Wrap a baton error for the workflow boundary: non-retryable, typed by class name. */
export function toApplicationFailure(err: BatonError): ApplicationFailure {
  return ApplicationFailure.create({
    type: err.name,
    message: err.message,
    nonRetryable: true,
    details: [err.details],
  });
}

/** Rebuild a baton error from an `ApplicationFailure`; `undefined` when the type is not one of baton's. */
export function errorFromFailure(failure: ApplicationFailure): BatonError | undefined {
  const rebuild = failure.type ? rebuilders[failure.type] : undefined;
  if (!rebuild) return undefined;
  const details = (failure.details?.[0] ?? {}) as Details;
  const err = rebuild(failure.message, details);
  err.message = failure.message;
  return err;
}
