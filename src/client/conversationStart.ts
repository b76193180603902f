/**
 * How a conversation starts (`baton.conversation(agent, options)`): its options, its id (the one
 * given, else a new one under its tenant's prefix), its checked input, and the workflow start that
 * goes with each message, with the search attributes the conversation begins with.
 */
import { randomUUID } from 'node:crypto';
import { runStartOptions } from './runStart';
import { WithStartWorkflowOperation } from '@temporalio/client';
import type { conversation as conversationWorkflow } from '../../workflows/conversation';
import type { ConversationInput } from '../common/conversation';
import type { ConversationOptions } from '../common/conversationOptions';
import { InvalidRunInputError, UserError } from '../common/errors';
import { validateConversationInput } from '../common/input';
import { WorkflowType } from '../common/messages';
import type { RunOptions } from '../common/options';
import type { RunContext } from '../common/team';
import { TENANT_ID, tenantIdProblem, tenantPrefix } from '../common/tenant';
import { inVariant, type VariantStart } from './experiments';

/** Options of `baton.conversation(agent, options)`. */
export interface ConversationStartOptions {
  /** The conversation's workflow id: give the same id to go on with a conversation. @default `baton-chat-<agent>-<uuid>` */
  id?: string;
  /** Options of the chain each message runs (limits, timeouts, approvals). */
  options?: RunOptions;
  /** Idle timeout, compaction threshold, idempotency window. */
  conversation?: ConversationOptions;
  /** Application data every tool call of the conversation receives: plain JSON, recorded in history. */
  context?: RunContext;
  /**
   * Hold the conversation in this experiment: it gets its variant by the experiment's key (`id`:
   * the conversation's id) when its first message starts it, and every turn runs in it.
   */
  experiment?: string;
}

/** What each start of a conversation's workflow is made of: its id, task queue, first agent and checked input. */
export interface ConversationStart {
  id: string;
  taskQueue: string;
  agent: string;
  input: ConversationInput;
}

/**
 * The id, checked input and experiment of a conversation at `agent`; an id that names nothing, bad
 * options or an id outside the tenant's prefix throw before anything is sent.
 */
export function conversationStart(
  agent: string,
  options: ConversationStartOptions,
): { id: string; input: ConversationInput; experiment?: string } {
  if (options.id !== undefined && (typeof options.id !== 'string' || options.id.trim() === '')) {
    throw new UserError(
      `id must name the conversation (its workflow id), got ${JSON.stringify(options.id)}; leave it out for a new one`,
    );
  }
  const tenant = options.options?.tenant;
  const id =
    options.id ??
    `${tenant !== undefined && TENANT_ID.test(tenant) ? tenantPrefix(tenant) : ''}baton-chat-${agent}-${randomUUID()}`;
  const input = validateConversationInput({
    agent,
    ...(options.options ? { options: options.options } : {}),
    ...(options.conversation ? { conversation: options.conversation } : {}),
    ...(options.context ? { context: options.context } : {}),
  });
  const misplaced = tenant !== undefined ? tenantIdProblem(tenant, id) : undefined;
  if (misplaced) throw new InvalidRunInputError([`"id": ${misplaced}`]);
  return { id, input, ...(options.experiment !== undefined ? { experiment: options.experiment } : {}) };
}

/** The start that goes with a message of conversation `c` (one per sending: an operation is used once). */
export function conversationStartOperation(
  c: ConversationStart,
  variant?: VariantStart,
): WithStartWorkflowOperation<typeof conversationWorkflow> {
  // In an experiment, the variant's run options go over the conversation's.
  const input = variant ? validateConversationInput({ ...c.input, options: variant.options }) : c.input;
  const start = {
    workflowId: c.id,
    taskQueue: c.taskQueue,
    args: [input] as [ConversationInput],
    workflowIdConflictPolicy: 'USE_EXISTING' as const,
    // An ended conversation is not replaced by a new one of the same id: its messages would be lost to it.
    workflowIdReusePolicy: 'REJECT_DUPLICATE' as const,
    ...runStartOptions({
      agent: c.agent,
      handoffs: 0,
      priority: c.input.options?.priority,
      tenant: c.input.options?.tenant,
    }),
  };
  return new WithStartWorkflowOperation<typeof conversationWorkflow>(
    WorkflowType.CONVERSATION,
    variant ? inVariant(start, variant) : start,
  );
}
