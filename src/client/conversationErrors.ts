/** How a conversation's updates failed, the typed error each failure stands for, and when to send one again. */
import {
  ApplicationFailure,
  type Client,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type WorkflowHandle,
} from '@temporalio/client';
import type { ConversationReply } from '../common/conversation';
import { CONVERSATION_ERRORS, ConversationEndedError } from '../common/conversationErrors';
import { messageQuery } from '../common/messages';
import type { BatonError } from '../common/errors';
import { errorFromFailure } from '../common/errorTypes';
import { TASK_FAILING_PATIENCE_MS, updateUnprocessed } from './taskFailing';
import { latestStatus } from './latestStatus';

/** Whether an update failed because its run continued as new before answering: to be sent again. */
function continued(err: unknown): boolean {
  return (
    err instanceof WorkflowUpdateFailedError &&
    err.cause instanceof ApplicationFailure &&
    err.cause.type === 'ConversationContinuedError'
  );
}

/**
 * Whether an update first sent at `since` is to be sent again: its run continued as new before
 * answering, or Temporal rejected it unprocessed (for as long as a run's failing task is waited for).
 */
export function sendAgain(err: unknown, since: number): boolean {
  return continued(err) || (updateUnprocessed(err) && Date.now() - since < TASK_FAILING_PATIENCE_MS);
}

/**
 * A message follows its conversation into each new run, however many there are while it waits (a
 * turn waiting for a person through kills and restarts may see hundreds); past the first few, each
 * hop waits a little, up to 2 s, so a conversation that continues as new in a loop is not hammered.
 */
export function nextRun(hop: number): Promise<void> {
  return hop < 10 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, Math.min(2_000, 50 * hop)));
}

/** Whether an update failed because its run ended before answering it (Temporal's `AcceptedUpdateCompletedWorkflow`). */
export function endedFirst(err: unknown): boolean {
  return (
    err instanceof WorkflowUpdateFailedError &&
    err.cause instanceof ApplicationFailure &&
    err.cause.type === 'AcceptedUpdateCompletedWorkflow'
  );
}

/** The typed error of a failed update or run: the conversation's own, baton's, or the error as it came. */
export function conversationError(err: unknown): unknown {
  const cause = err instanceof WorkflowUpdateFailedError || err instanceof WorkflowFailedError ? err.cause : undefined;
  if (!(cause instanceof ApplicationFailure) || !cause.type) return err;
  const cls = CONVERSATION_ERRORS[cause.type as keyof typeof CONVERSATION_ERRORS];
  if (!cls) {
    const typed = errorFromFailure(cause);
    if (typed) (typed as { cause?: unknown }).cause = err;
    return typed ?? err;
  }
  const details = (cause.details?.[0] ?? {}) as Record<string, unknown>;
  // The error as thrown in the workflow: its class, message and fields, without re-running its constructor.
  const typed = Object.create(cls.prototype) as BatonError;
  Object.defineProperties(typed, {
    name: { value: cls.name, writable: true, configurable: true },
    message: { value: cause.message, writable: true, configurable: true },
    details: { value: details, enumerable: false },
    cause: { value: err, writable: true, configurable: true },
  });
  return Object.assign(typed, details);
}

/** The reply a conversation remembers giving the message of `idempotencyKey`, if it answered it (asked of its latest run). */
export async function rememberedReply(
  handle: WorkflowHandle,
  idempotencyKey: string,
): Promise<ConversationReply<unknown> | undefined> {
  const found = await handle.query(messageQuery, { idempotencyKey }).catch(() => undefined);
  return found?.message?.status === 'answered' && found.message.reply ? found.message.reply : undefined;
}

/**
 * `err` as the caller is told it: Temporal answers an update to a conversation whose workflow has
 * closed with "not found", which for a conversation that exists means it ended.
 */
export async function endedIfClosed(client: Client, workflowId: string, err: unknown): Promise<unknown> {
  if (!(err instanceof WorkflowNotFoundError)) return err;
  const status = await latestStatus(client.workflow.getHandle(workflowId));
  return status !== undefined && status !== 'RUNNING' ? new ConversationEndedError(workflowId) : err;
}
