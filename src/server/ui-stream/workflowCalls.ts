/**
 * The UI stream routes' calls to Temporal: each within the request deadline, the workflow checked
 * to be of the route's kind (a conversation or a chain), and an answer followed as chunks for the
 * caller.
 */
import type { Context } from 'hono';
import { BatonError } from '../../common/errors';
import { WorkflowType } from '../../common/messages';
import { mayDecide, type Identity } from '../auth';
import type { ServiceContext } from '../context';
import { kindOf, notA } from '../kinds';
import { HttpProblem } from '../problems';
import { followAnswer } from './follow';
import type { ChunkWriter } from './writer';

/** What a UI stream route is for: a conversation, or a single chain. */
export type Kind = 'conversation' | 'chain';

/** The workflow type of each kind. */
export const WORKFLOW: Record<Kind, string> = {
  conversation: WorkflowType.CONVERSATION,
  chain: WorkflowType.HANDOFF_RUN,
};

/** The answer to the message `key`, followed as chunks; the request's end stops it. */
export function follow(
  c: Context,
  ctx: ServiceContext,
  kind: Kind,
  id: string,
  key: string,
  writer: ChunkWriter,
  reply?: Promise<unknown>,
) {
  const abort = new AbortController();
  c.req.raw.signal.addEventListener('abort', () => abort.abort(), { once: true });
  return {
    abort,
    chunks: followAnswer({
      client: ctx.baton.client,
      streams: ctx.baton.streams,
      workflowId: id,
      mode: kind,
      key,
      mayDecide: decider(c.get('identity') as Identity),
      writer,
      ...(reply ? { reply } : {}),
      describe: describeError,
      signal: abort.signal,
    }),
  };
}

/** `identity`'s test of an approval's approvers: whether it may decide the approval. */
export function decider(identity: Identity) {
  return (approvers: readonly string[] | undefined) => mayDecide(identity, approvers);
}

/** 404 when there is no such workflow (unless `mustExist` is false), 409 when it is of the other kind. */
export async function mustBe(ctx: ServiceContext, kind: Kind, id: string, mustExist: boolean): Promise<void> {
  const found = await deadline(ctx, () => kindOf(ctx, id));
  if (found === undefined && mustExist) throw new HttpProblem(404, 'Not found', `no ${kind} ${id}`);
  if (found !== undefined && found !== WORKFLOW[kind])
    throw notA(kind === 'conversation' ? 'conversation' : 'chain', id, found);
}

/** These routes wait as long as an answer takes; their calls to Temporal keep the request deadline. */
export function deadline<T>(ctx: ServiceContext, fn: () => Promise<T>): Promise<T> {
  return ctx.baton.client.connection.withDeadline(Date.now() + ctx.temporalTimeoutMs, fn);
}

function describeError(err: unknown): string {
  if (err instanceof BatonError || err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}
