/**
 * Steering a running chain or a conversation's running turn: a user message applied at its next
 * step (`baton.steer`), or at once, stopping the model call under way (`baton.interrupt`).
 */
import { ApplicationFailure, type Client, WorkflowUpdateFailedError } from '@temporalio/client';
import { type BatonError, InputTooLargeError, InvalidRunInputError, UserError } from '../common/errors';
import { SteeringRefusedError, steerProblems, steerSizes, type SteerInput, type SteerReceipt } from '../common/live';
import { steerUpdate } from '../common/messages';
import { conversationError } from './conversationErrors';
import { whileWorkflowTaskFails } from './taskFailing';

/** Options of `baton.steer()` and `baton.interrupt()`. */
export interface SteerOptions {
  /** Who sends the message (a person's or a service's name): recorded with it in the chain's history. */
  by: string;
}

/** Send `input` to the chain or conversation `workflowId`; a refusal throws baton's typed error naming why. */
export async function steerChain(client: Client, workflowId: string, input: SteerInput): Promise<SteerReceipt> {
  if (typeof input.by !== 'string' || input.by.trim() === '')
    throw new UserError('by must name who sends the steering message');
  const sizes = steerSizes(input);
  if (sizes.length > 0) throw new InputTooLargeError(sizes);
  const problems = steerProblems(input);
  if (problems.length > 0) throw new InvalidRunInputError(problems);
  try {
    return await whileWorkflowTaskFails(() =>
      client.workflow.getHandle(workflowId).executeUpdate(steerUpdate, { args: [input] }),
    );
  } catch (err) {
    throw steerError(err);
  }
}

function steerError(err: unknown): unknown {
  const cause = err instanceof WorkflowUpdateFailedError ? err.cause : undefined;
  if (cause instanceof ApplicationFailure && cause.type === SteeringRefusedError.name) {
    const typed = Object.assign(
      Object.create(SteeringRefusedError.prototype) as BatonError,
      (cause.details?.[0] ?? {}) as object,
    );
    Object.defineProperties(typed, {
      name: { value: SteeringRefusedError.name, writable: true, configurable: true },
      message: { value: cause.message, writable: true, configurable: true },
      details: { value: cause.details?.[0] ?? {}, enumerable: false },
      cause: { value: err, writable: true, configurable: true },
    });
    return typed;
  }
  return conversationError(err);
}
