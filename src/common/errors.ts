/**
 * baton's errors, by blame: {@link UserError} (misconfiguration, bad input), {@link ModelBehaviorError}
 * (the model did something the run cannot accept), {@link SystemError} (nobody's input: a call
 * that kept failing, a defect). They cross the workflow boundary as non-retryable
 * `ApplicationFailure`s whose `type` is the class name and whose single detail is the error's
 * {@link BatonError.details}; `errorFromFailure` (in `errorTypes.ts`) rebuilds the same class from those details.
 * The errors of a model's behaviour are in `modelBehaviorErrors.ts`, those of used-up budgets in `budgetErrors.ts`.
 *
 * Workflow-safe: no I/O.
 */
import { ApplicationFailure } from '@temporalio/common';
import { sizeMessage, type LimitUnit, type SizeProblem } from './limits';

/** What an error carries besides its message: plain JSON, sent as the failure's details. */
type Details = Record<string, unknown>;

/** Base class of every error baton raises. */
export class BatonError<D extends Details = Details> extends Error {
  /** Plain data that travels with the failure and rebuilds the error on the client; also the error's fields. */
  declare readonly details: D;

  constructor(message: string, details: D) {
    super(message);
    this.name = new.target.name;
    Object.defineProperty(this, 'details', { value: details, enumerable: false });
    Object.assign(this, details);
  }
}

/** A misconfiguration by the caller: bad team, bad agent, bad input or options. */
export class UserError<D extends Details = Details> extends BatonError<D> {
  constructor(message: string, details: D = {} as D) {
    super(message, details);
  }
}

/** The model did something the run cannot accept. */
export class ModelBehaviorError<D extends Details = Details> extends BatonError<D> {}

/** A failure that is nobody's input: a call that still failed after its retries, or a defect. */
export class SystemError<D extends Details = Details> extends BatonError<D> {}

/** A team definition that cannot run: the message names every problem found. */
export class TeamValidationError extends UserError<{ problems: string[] }> {
  declare readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid team: ${problems.join('; ')}`, { problems });
  }
}

/** A run input or option that is not valid. */
export class InvalidRunInputError extends UserError<{ problems: string[] }> {
  declare readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid run input: ${problems.join('; ')}`, { problems });
  }
}

/** A run started on an agent the team does not have. */
export class AgentNotFoundError extends UserError<{ agent: string; available: string[] }> {
  declare readonly agent: string;
  declare readonly available: string[];
  constructor(agent: string, available: string[]) {
    super(`Agent "${agent}" is not registered. Available: ${available.join(', ')}`, { agent, available });
  }
}

/** A decision on a handoff or tool call that cannot apply: unknown id, already decided, or an approver not allowed. */
export class ApprovalRefusedError extends UserError<{ handoffId: string; reason: string; problem?: string }> {
  declare readonly handoffId: string;
  declare readonly reason: string;
  constructor(handoffId: string, reason: string, problem?: string) {
    super(`Decision on approval ${handoffId} refused: ${reason}`, {
      handoffId,
      reason,
      ...(problem !== undefined ? { problem } : {}),
    });
  }
}

/**
 * A decision refused for its signature: missing where the policy requires one, malformed, by a key
 * the chain does not trust (for that approver, or at that time), not verifying, signing something
 * else (a replay), or too old. `problem` says which (`SignatureProblem`).
 */
export class SignatureRefusedError extends ApprovalRefusedError {
  declare readonly problem: string;
}

/**
 * A field from outside over its limit (`LIMITS`): a decision's approver, comment or id, a
 * conversation message or its key, overrides, a start input. `field`, `size`, `limit` and `unit`
 * name the first; `fields` lists every one. Nothing of the value is repeated.
 */
export class InputTooLargeError extends UserError<{
  field: string;
  size: number;
  limit: number;
  unit: LimitUnit;
  fields: SizeProblem[];
}> {
  declare readonly field: string;
  declare readonly size: number;
  declare readonly limit: number;
  declare readonly unit: LimitUnit;
  declare readonly fields: SizeProblem[];
  constructor(fields: SizeProblem[]) {
    const [first] = fields;
    super(`Input too large: ${fields.map(sizeMessage).join('; ')}`, {
      field: first!.field,
      size: first!.size,
      limit: first!.limit,
      unit: first!.unit,
      fields,
    });
  }
}

/** A model endpoint refused the request in a way retrying cannot fix (400, 401, 403, 404, …). */
export class ModelRequestError extends UserError<{ status?: number }> {
  declare readonly status?: number;
  constructor(message: string, status?: number) {
    super(message, status === undefined ? {} : { status });
  }
}

/** A scripted model was called when it had no step and no rule left for the call. */
export class UnexpectedModelCallError extends UserError<{ agent: string; callIndex: number; lastMessage: string }> {
  declare readonly agent: string;
  declare readonly callIndex: number;
  declare readonly lastMessage: string;
  constructor(agent: string, callIndex: number, lastMessage: string) {
    super(
      `Scripted model of agent "${agent}" has no step or rule for call ${callIndex + 1} ` +
        `(latest message: ${JSON.stringify(lastMessage.slice(0, 120))})`,
      { agent, callIndex, lastMessage },
    );
  }
}

/** A run ended while a scripted model still had steps that were never used. */
export class UnconsumedScriptStepsError extends UserError<{ unconsumed: Record<string, number> }> {
  declare readonly unconsumed: Record<string, number>;
  constructor(unconsumed: Record<string, number>) {
    super(
      `Scripted steps were left unused: ${Object.entries(unconsumed)
        .map(([agent, n]) => `${agent} (${n})`)
        .join(', ')}`,
      { unconsumed },
    );
  }
}

/** A guardrail of `agent` tripped on its input or output, and its policy (or its retries) says fail. */
export class GuardrailTrippedError extends BatonError<{
  agent: string;
  guardrail: string;
  stage: 'input' | 'output';
  reason: string;
}> {
  declare readonly agent: string;
  declare readonly guardrail: string;
  declare readonly stage: 'input' | 'output';
  declare readonly reason: string;
  constructor(agent: string, guardrail: string, stage: 'input' | 'output', reason: string) {
    super(`Guardrail "${guardrail}" of agent "${agent}" tripped on its ${stage}: ${reason}`, {
      agent,
      guardrail,
      stage,
      reason,
    });
  }
}

/** A specialist failed and its delegation says `onFailure: 'fail'`. */
export class DelegationFailedError extends SystemError<{ agent: string; specialist: string; reason: string }> {
  declare readonly agent: string;
  declare readonly specialist: string;
  declare readonly reason: string;
  constructor(agent: string, specialist: string, reason: string) {
    super(`The task agent "${agent}" delegated to "${specialist}" failed: ${reason}`, { agent, specialist, reason });
  }
}

/**
 * A remote agent (reached over A2A) did not answer a delegated task: the task failed, was rejected
 * or cancelled there (`state`), or the remote refused the call or could not be reached (`status`,
 * the HTTP status when there was one).
 */
export class RemoteAgentError extends SystemError<{
  remote: string;
  reason: string;
  taskId?: string;
  state?: string;
  status?: number;
}> {
  declare readonly remote: string;
  declare readonly reason: string;
  declare readonly taskId?: string;
  declare readonly state?: string;
  declare readonly status?: number;
  constructor(details: { remote: string; reason: string; taskId?: string; state?: string; status?: number }) {
    super(`Remote agent "${details.remote}" did not answer: ${details.reason}`, details);
  }
}

/** Nobody decided a handoff in time and its policy says `onTimeout: 'fail'`. */
export class ApprovalTimeoutError extends BatonError<{ handoffId: string; from: string; to: string; timeout: string }> {
  declare readonly handoffId: string;
  declare readonly from: string;
  declare readonly to: string;
  declare readonly timeout: string;
  constructor(handoffId: string, from: string, to: string, timeout: string) {
    super(`Handoff ${from} → ${to} (${handoffId}) was not decided within ${timeout}`, { handoffId, from, to, timeout });
  }
}

/** A model call that still failed after its retries. */
export class ModelCallFailedError extends SystemError<{ agent: string; reason: string }> {
  declare readonly agent: string;
  declare readonly reason: string;
  constructor(agent: string, reason: string) {
    super(`Model call of agent "${agent}" failed: ${reason}`, { agent, reason });
  }
}

/** A tool that failed after its retries, or failed non-retryably. */
export class ToolExecutionError extends SystemError<{ agent: string; tool: string; reason: string }> {
  declare readonly agent: string;
  declare readonly tool: string;
  declare readonly reason: string;
  constructor(agent: string, tool: string, reason: string) {
    super(`Tool "${tool}" of agent "${agent}" failed: ${reason}`, { agent, tool, reason });
  }
}

/**
 * Something unexpected was thrown inside the workflow: a defect, not anybody's input. The run fails
 * with it instead of retrying its workflow task forever; `baton replay` continues the chain once
 * the fix is deployed.
 */
export class UnexpectedWorkflowError extends SystemError<{ errorName: string; stack?: string }> {
  declare readonly errorName: string;
  constructor(errorName: string, message: string, stack?: string) {
    super(`Unexpected ${errorName} in the workflow: ${message}`, { errorName, ...(stack ? { stack } : {}) });
  }
}

/**
 * A step of a chain needs a part of its team that the worker asked to run it does not have: an
 * agent, a tool, a tool whose parameters changed, a guardrail, a model provider, or (for a
 * specialist) the team of the chain that delegated to it. `version` is the chain's team,
 * `worker` the team of the worker that refused, `missing` says what it lacks. A step refused so
 * is tried again, on any worker, for `teamMismatchTimeout`; then the chain fails with this error
 * (`waitedMs` set), and `baton replay <id> --on-current-team` continues it on the current team.
 */
export class TeamMismatchError extends SystemError<{
  version: string;
  worker: string;
  step: string;
  missing: string[];
  waitedMs?: number;
}> {
  declare readonly version: string;
  declare readonly worker: string;
  declare readonly step: string;
  declare readonly missing: string[];
  declare readonly waitedMs?: number;
  constructor(details: { version: string; worker: string; step: string; missing: string[]; waitedMs?: number }) {
    const waited =
      details.waitedMs !== undefined
        ? `; no worker that has it took the step within ${Math.round(details.waitedMs / 1000)} s`
        : '';
    super(
      `Team mismatch: step ${details.step} of a chain on team ${details.version} needs ${details.missing.join('; ')}, which a worker on team ${details.worker} lacks${waited}`,
      details,
    );
  }
}

/** Wrap a baton error for the workflow boundary: non-retryable, typed by class name. */
export function toApplicationFailure(err: BatonError): ApplicationFailure {
  return ApplicationFailure.create({
    type: err.name,
    message: err.message,
    nonRetryable: true,
    details: [err.details],
  });
}
