/**
 * The model calls an interrupt stopped while a conversation answered one of its turns, read from
 * the `batonLive` records of the conversation's latest run: what a message's live stream drops.
 */
import type { Client } from '@temporalio/client';
import { liveRecordOf } from '../audit/live';
import { decodeHistory } from '../payloads/history';
import type { StoppedCall, StoppedCalls } from '../streams/message';

/** The stopped calls of conversation `workflowId`'s turns, as {@link streamMessage} asks for them. */
export function stoppedCallsOf(client: Client, workflowId: string): StoppedCalls {
  return async (turn) => {
    const fetched = await client.workflow.getHandle(workflowId).fetchHistory();
    const history = await decodeHistory(fetched, client.options.loadedDataConverter.payloadCodecs);
    const stopped: StoppedCall[] = [];
    for (const e of history.events ?? []) {
      const r = liveRecordOf(e);
      if (r?.type === 'interrupted' && r.turn === turn) stopped.push({ workflowId, agent: r.agent, call: r.call });
    }
    return stopped;
  };
}
