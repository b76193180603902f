import type { Context } from '@temporalio/activity';
import type { CallModelInput } from '../src/common/model';
import { DeltaPublisher } from '../src/streams/publisher';
import type { StreamTransport } from '../src/streams/types';

/**
 * The publisher of a model call's text, when its chain streams (`input.stream`) and the worker has
 * a transport: its deltas go to the chain's topic and to the topic of the top of its delegation.
 */
export function textPublisher(
  streams: StreamTransport | undefined,
  ctx: Context,
  input: CallModelInput,
): DeltaPublisher | undefined {
  const tag = input.stream;
  const execution = ctx.info.workflowExecution;
  if (!tag || !streams || !execution) return undefined;
  const topics = [execution.workflowId, ...(tag.root && tag.root !== execution.workflowId ? [tag.root] : [])];
  return new DeltaPublisher(
    streams,
    topics,
    {
      workflowId: execution.workflowId,
      runId: execution.runId,
      agent: input.agentId,
      call: `${input.agentId}#${input.callIndex}`,
      turn: tag.turn ?? 0,
      ...(tag.message !== undefined ? { message: tag.message } : {}),
      ...(tag.merged?.length ? { merged: tag.merged } : {}),
      restart: input.lostWorker?.restarts ?? 0,
      attempt: ctx.info.attempt,
    },
    (err) =>
      ctx.log.warn("streaming the model call's text failed; followers get the answer when the call ends", {
        error: String(err),
      }),
  );
}
