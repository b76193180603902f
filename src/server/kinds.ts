/**
 * Run routes take chains and conversation routes take conversations: an id of the other kind is
 * refused with 409 naming what it is and where to read it, before anything is sent to it.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { WorkflowType } from '../common/messages';
import type { ServiceContext } from './context';
import { HttpProblem } from './problems';

/** The workflow type of workflow `id`; `undefined` when there is none. */
export async function kindOf(ctx: ServiceContext, id: string): Promise<string | undefined> {
  try {
    return (await ctx.baton.client.workflow.getHandle(id).describe()).type;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

/** 404 when there is no workflow `id`, 409 when it is not a chain (`handoffRun`). */
export async function mustBeChain(ctx: ServiceContext, id: string): Promise<void> {
  const kind = await kindOf(ctx, id);
  if (kind === undefined) throw new HttpProblem(404, 'Not found', `no chain ${id}`);
  if (kind !== WorkflowType.HANDOFF_RUN) throw notA('chain', id, kind);
}

/** 404 when there is no workflow `id`, 409 when it is not a conversation. */
export async function mustBeConversation(ctx: ServiceContext, id: string): Promise<void> {
  const kind = await kindOf(ctx, id);
  if (kind === undefined) throw new HttpProblem(404, 'Not found', `no conversation ${id}`);
  if (kind !== WorkflowType.CONVERSATION) throw notA('conversation', id, kind);
}

/** 409: `id` is a workflow of type `type`, not a `wanted`. */
export function notA(wanted: 'chain' | 'conversation', id: string, type: string): HttpProblem {
  const path = encodeURIComponent(id);
  const what =
    type === WorkflowType.HANDOFF_RUN
      ? `a chain (a ${type} workflow), not a conversation; read it at /v1/runs/${path}`
      : type === WorkflowType.CONVERSATION
        ? `a conversation, not a chain; read it at /v1/conversations/${path} (its approvals are decided at /v1/runs/${path}/approvals/<approvalId>)`
        : `a ${type} workflow, not a ${wanted}`;
  return new HttpProblem(
    409,
    `Not a ${wanted}`,
    `${id} is ${what}${wanted === 'conversation' ? '; give a conversation an id of its own' : ''}`,
  );
}
