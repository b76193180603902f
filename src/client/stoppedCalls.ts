/**
 * The model calls an interrupt stopped while a conversation answered one of its turns, read from
 * the `batonLive` records of the conversation's runs that answered the turn: what a message's live
 * stream drops. A turn that waited (for a person, a specialist) may have continued as new after the
 * interrupt, so the runs are read from the latest back to the one the turn started in.
 */
import type { Client } from '@temporalio/client';
import { liveRecordOf } from '../audit/live';
import type { TurnEndedRecord, TurnStartedRecord } from '../common/conversation';
import { TURN_MEMO } from '../common/messages';
import { decodeHistory } from '../payloads/history';
import { fromPayload, type HistoryEvent } from '../payloads/read';
import type { StoppedCall, StoppedCalls } from '../streams/message';
import { historyOf } from '../payloads/historyPages';

/** Runs read back at most: a turn carried through more continue-as-new hops than this is read in its latest runs. */
const MAX_RUNS = 50;

/** The stopped calls of conversation `workflowId`'s turns, as {@link streamMessage} asks for them. */
export function stoppedCallsOf(client: Client, workflowId: string): StoppedCalls {
  return async (turn) => {
    const stopped: StoppedCall[] = [];
    let runId: string | undefined;
    for (let n = 0; n < MAX_RUNS; n++) {
      const fetched = await historyOf(client, workflowId, runId);
      const events = (await decodeHistory(fetched, client.options.loadedDataConverter.payloadCodecs)).events ?? [];
      const found = events.flatMap((e) => {
        const r = liveRecordOf(e);
        return r?.type === 'interrupted' && r.turn === turn ? [{ workflowId, agent: r.agent, call: r.call }] : [];
      });
      stopped.unshift(...found);
      // The turn began in this run, or nothing came before it.
      if (events.some((e) => startsTurn(e, turn))) break;
      runId = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? undefined;
      if (!runId) break;
    }
    return stopped;
  };
}

function startsTurn(e: HistoryEvent, turn: number): boolean {
  const field = e.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields?.[TURN_MEMO];
  const record = field ? fromPayload<TurnStartedRecord | TurnEndedRecord>(field) : undefined;
  return record?.phase === 'started' && record.turn === turn;
}
