/**
 * Defaults and validation of run input and options, shared by the client (fail before starting)
 * and the workflow (fail a run started by another program with bad JSON).
 *
 * Workflow-safe: no I/O.
 */
import type { ActivityOptions, Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import { InvalidRunInputError } from './errors';
import type { HandoffRunInput, ResolvedRunOptions, RetryOptions, RunOptions } from './types';

export type { ResolvedRunOptions } from './types';

/** Handoffs allowed in one run unless `maxHandoffs` says otherwise. */
export const DEFAULT_MAX_HANDOFFS = 10;
/** Model turns allowed in one activation of an agent unless `maxTurns` says otherwise. */
export const DEFAULT_MAX_TURNS = 10;
/** Invalid handoffs answered with a tool error before the run fails, with `onInvalidHandoff: 'retry'`. */
export const DEFAULT_MAX_INVALID_HANDOFF_RETRIES = 2;


/** Retry policy of model and tool activities unless the run overrides it. */
export const DEFAULT_RETRY: Required<RetryOptions> = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '1 minute',
  maximumAttempts: 5,
};

const RUN_OPTION_KEYS = new Set([
  'maxHandoffs',
  'maxTurns',
  'onInvalidHandoff',
  'maxInvalidHandoffRetries',
  'modelTimeout',
  'toolTimeout',
  'retry',
  'approvals',
  'continueAsNewAfterEvents',
]);

/** Check a `handoffRun` input; throws {@link InvalidRunInputError} naming every problem. */
export function validateRunInput(value: unknown): HandoffRunInput {
  const problems: string[] = [];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidRunInputError([
      'input must be an object {"agent": string, "input": string, "options"?: object}',
    ]);
  }
  const v = value as Record<string, unknown>;
  if (typeof v.agent !== 'string' || v.agent.length === 0) problems.push('"agent" must be a non-empty string');
  if (typeof v.input !== 'string') problems.push('"input" must be a string');
  if (v.options !== undefined) problems.push(...runOptionProblems(v.options));
  if (v.resume !== undefined && (typeof v.resume !== 'object' || v.resume === null)) problems.push('"resume" is set only by baton when a run continues as new');
  const extra = Object.keys(v).filter((k) => !['agent', 'input', 'options', 'resume'].includes(k));
  if (extra.length > 0) problems.push(`unknown field(s) ${extra.map((k) => `"${k}"`).join(', ')} (valid: agent, input, options)`);
  if (problems.length > 0) throw new InvalidRunInputError(problems);
  return v as unknown as HandoffRunInput;
}

/** Problems with run options, each naming the option and what would be valid. */
export function runOptionProblems(options: unknown): string[] {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    return ['"options" must be an object'];
  }
  const o = options as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of Object.keys(o)) {
    if (!RUN_OPTION_KEYS.has(key)) {
      problems.push(`unknown option "${key}" (valid: ${[...RUN_OPTION_KEYS].join(', ')})`);
    }
  }
  const count = (key: string, min: number) => {
    const n = o[key];
    if (n !== undefined && (typeof n !== 'number' || !Number.isInteger(n) || n < min)) {
      problems.push(`"${key}" must be an integer >= ${min}, got ${JSON.stringify(n)}`);
    }
  };
  count('maxHandoffs', 0);
  count('maxTurns', 1);
  count('maxInvalidHandoffRetries', 0);
  count('continueAsNewAfterEvents', 0);
  if (o.onInvalidHandoff !== undefined && o.onInvalidHandoff !== 'fail' && o.onInvalidHandoff !== 'retry') {
    problems.push(`"onInvalidHandoff" must be "fail" or "retry", got ${JSON.stringify(o.onInvalidHandoff)}`);
  }
  for (const key of ['modelTimeout', 'toolTimeout']) problems.push(...durationProblems(key, o[key]));
  if (o.approvals !== undefined) {
    if (!Array.isArray(o.approvals)) problems.push('"approvals" must be an array of {to, from?, required?, approvers?, timeout?, onTimeout?}');
    else o.approvals.forEach((rule, i) => problems.push(...approvalRuleProblems(rule, `approvals[${i}]`)));
  }
  if (o.retry !== undefined) {
    if (typeof o.retry !== 'object' || o.retry === null) problems.push('"retry" must be an object');
    else {
      const r = o.retry as Record<string, unknown>;
      problems.push(...durationProblems('retry.initialInterval', r.initialInterval));
      problems.push(...durationProblems('retry.maximumInterval', r.maximumInterval));
      if (r.maximumAttempts !== undefined && (!Number.isInteger(r.maximumAttempts) || Number(r.maximumAttempts) < 1)) {
        problems.push('"retry.maximumAttempts" must be an integer >= 1');
      }
      if (r.backoffCoefficient !== undefined && (typeof r.backoffCoefficient !== 'number' || r.backoffCoefficient < 1)) {
        problems.push('"retry.backoffCoefficient" must be a number >= 1');
      }
    }
  }
  return problems;
}

/** Problems with an approval policy; `where` names it in the messages. */
export function approvalPolicyProblems(policy: unknown, where: string): string[] {
  if (typeof policy !== 'object' || policy === null) return [`${where} must be an object {required?, approvers?, timeout?, onTimeout?}`];
  const p = policy as Record<string, unknown>;
  const problems: string[] = [];
  if (p.required !== undefined && typeof p.required !== 'boolean') problems.push(`${where}.required must be true or false`);
  if (p.approvers !== undefined && (!Array.isArray(p.approvers) || p.approvers.some((a) => typeof a !== 'string' || a === ''))) {
    problems.push(`${where}.approvers must be a list of approver names`);
  }
  if (p.onTimeout !== undefined && !['reject', 'approve', 'fail'].includes(p.onTimeout as string)) {
    problems.push(`${where}.onTimeout must be "reject", "approve" or "fail", got ${JSON.stringify(p.onTimeout)}`);
  }
  problems.push(...durationProblems(`${where}.timeout`, p.timeout));
  return problems;
}

/** Problems with an approval rule (a policy with `to` and optionally `from`). */
export function approvalRuleProblems(rule: unknown, where: string): string[] {
  const problems = approvalPolicyProblems(rule, where);
  if (typeof rule !== 'object' || rule === null) return problems;
  const r = rule as Record<string, unknown>;
  if (typeof r.to !== 'string' || r.to === '') problems.push(`${where}.to must name the target agent`);
  if (r.from !== undefined && typeof r.from !== 'string') problems.push(`${where}.from must name the source agent`);
  return problems;
}

function durationProblems(key: string, value: unknown): string[] {
  if (value === undefined) return [];
  try {
    if (typeof value !== 'string' && typeof value !== 'number') throw new Error();
    if (msToNumber(value as Duration) <= 0) throw new Error();
    return [];
  } catch {
    return [`"${key}" must be a positive duration such as "30 seconds" or a number of milliseconds`];
  }
}

/** Apply defaults to validated options. */
export function resolveRunOptions(options: RunOptions = {}): ResolvedRunOptions {
  return {
    maxHandoffs: options.maxHandoffs ?? DEFAULT_MAX_HANDOFFS,
    maxTurns: options.maxTurns ?? DEFAULT_MAX_TURNS,
    onInvalidHandoff: options.onInvalidHandoff ?? 'fail',
    maxInvalidHandoffRetries: options.maxInvalidHandoffRetries ?? DEFAULT_MAX_INVALID_HANDOFF_RETRIES,
    modelTimeout: options.modelTimeout ?? '2 minutes',
    toolTimeout: options.toolTimeout ?? '5 minutes',
    retry: { ...DEFAULT_RETRY, ...options.retry },
    approvals: options.approvals ?? [],
    continueAsNewAfterEvents: options.continueAsNewAfterEvents ?? 0,
  };
}

/** Error types a retry cannot fix; activities raise them as non-retryable, this list is a second guard. */
export const NON_RETRYABLE_ERROR_TYPES = [
  'ModelRequestError',
  'UnexpectedModelCallError',
  'TeamValidationError',
  'AgentNotFoundError',
  'ToolInputError',
];

/** Activity options of model calls for a run. */
export function modelActivityOptions(o: ResolvedRunOptions): ActivityOptions {
  return {
    startToCloseTimeout: o.modelTimeout as Duration,
    retry: { ...o.retry, nonRetryableErrorTypes: NON_RETRYABLE_ERROR_TYPES } as ActivityOptions['retry'],
  };
}

/** Activity options of tool calls for a run. */
export function toolActivityOptions(o: ResolvedRunOptions): ActivityOptions {
  return {
    startToCloseTimeout: o.toolTimeout as Duration,
    retry: { ...o.retry, nonRetryableErrorTypes: NON_RETRYABLE_ERROR_TYPES } as ActivityOptions['retry'],
  };
}
