/**
 * baton's errors by `ApplicationFailure` type, so a client rebuilds each typed error from its failure.
 *
 * Workflow-safe: no I/O.
 */
import type { ApplicationFailure } from '@temporalio/common';
import { QuestionRefusedError } from './approvalQuestions';
import { GatedEntryError, LooseningRefusedError, PolicyLoosenedError } from './authority/errors';
import { BudgetExceededError, MaxHandoffsExceededError, MaxTurnsExceededError } from './budgetErrors';
import { PriceUnknownError, SpendLimitExceededError } from './economics/errors';
import {
  AgentNotFoundError,
  ApprovalRefusedError,
  ApprovalTimeoutError,
  type BatonError,
  DelegationFailedError,
  GuardrailTrippedError,
  InputTooLargeError,
  InvalidRunInputError,
  ModelCallFailedError,
  ModelRequestError,
  RemoteAgentError,
  SignatureRefusedError,
  TeamMismatchError,
  TeamValidationError,
  ToolExecutionError,
  UnconsumedScriptStepsError,
  UnexpectedModelCallError,
  UnexpectedWorkflowError,
} from './errors';
import {
  DelegationDepthExceededError,
  EmptyOutputError,
  HandoffLoopDetectedError,
  HandoffTargetNotFoundError,
  OutputValidationError,
} from './modelBehaviorErrors';

/** Every concrete error class, so the client can rebuild each from its failure. */
const CLASSES = [
  TeamValidationError,
  InvalidRunInputError,
  AgentNotFoundError,
  ApprovalRefusedError,
  QuestionRefusedError,
  SignatureRefusedError,
  InputTooLargeError,
  ModelRequestError,
  UnexpectedModelCallError,
  UnconsumedScriptStepsError,
  BudgetExceededError,
  MaxHandoffsExceededError,
  HandoffTargetNotFoundError,
  MaxTurnsExceededError,
  HandoffLoopDetectedError,
  GuardrailTrippedError,
  EmptyOutputError,
  OutputValidationError,
  DelegationDepthExceededError,
  DelegationFailedError,
  RemoteAgentError,
  ApprovalTimeoutError,
  ModelCallFailedError,
  ToolExecutionError,
  UnexpectedWorkflowError,
  TeamMismatchError,
  PriceUnknownError,
  SpendLimitExceededError,
  GatedEntryError,
  LooseningRefusedError,
  PolicyLoosenedError,
];
const byType = new Map<string, (typeof CLASSES)[number]>(CLASSES.map((c) => [c.name, c]));

/** The names of baton's errors, as `ApplicationFailure` types. */
export const BATON_ERROR_TYPES: readonly string[] = [...byType.keys()];

/** Error types a retry cannot fix: every baton error is raised non-retryable; this is the second guard. */
export const NON_RETRYABLE_ERROR_TYPES: readonly string[] = BATON_ERROR_TYPES;

/** Rebuild a baton error from an `ApplicationFailure`; `undefined` when the type is not one of baton's. */
export function errorFromFailure(failure: ApplicationFailure): BatonError | undefined {
  const cls = failure.type ? byType.get(failure.type) : undefined;
  if (!cls) return undefined;
  const details = (failure.details?.[0] ?? {}) as Record<string, unknown>;
  // The error as thrown in the worker: its class, its message and its fields, without re-running the constructor.
  const err = Object.create(cls.prototype) as BatonError;
  Object.defineProperties(err, {
    name: { value: cls.name, writable: true, configurable: true },
    message: { value: failure.message, writable: true, configurable: true },
    stack: { value: failure.stack ?? `${cls.name}: ${failure.message}`, writable: true, configurable: true },
    details: { value: details, enumerable: false },
  });
  return Object.assign(err, details);
}
