/**
 * Reading a conversation's (or a chain's) history for the conversation benchmark: bytes per turn,
 * one run at a time, so a 10,000-turn conversation never sits in memory whole.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { ActivityType, TURN_MEMO } from '../src/common/messages';
import type { DevServer } from '../src/devserver/server';
import { CLAIM_CHECK_ENCODING } from '../src/payloads/claimCheck';
import { fromPayload, type HistoryEvent } from '../src/payloads/read';

/** What history holds of one turn. */
export interface TurnBytes {
  /** Every event of the turn, encoded as the server stores it (from its `batonTurn` start to the next). */
  history: number;
  /** The payloads of its model calls: each call's input and answer (what today's figure counts). */
  modelCalls: number;
  /** Bytes the turn put in the blob store instead of history (claim check). */
  blobs: number;
}

type IPayloads = temporal.api.common.v1.IPayloads | null | undefined;
const decoder = new TextDecoder();

const isReference = (p: temporal.api.common.v1.IPayload) =>
  decoder.decode(p.metadata?.encoding ?? new Uint8Array()) === CLAIM_CHECK_ENCODING;

const payloadBytes = (p: IPayloads) =>
  (p?.payloads ?? []).reduce((n, x) => n + temporal.api.common.v1.Payload.encode(x).finish().length, 0);

/** Every run of `workflowId`, oldest first, read one at a time. */
export async function forEachRun(
  env: DevServer,
  workflowId: string,
  read: (events: HistoryEvent[]) => void,
): Promise<number> {
  const connection = await Connection.connect({
    address: env.address,
    channelArgs: { 'grpc.max_receive_message_length': 256 * 2 ** 20 },
  });
  try {
    const client = new Client({ connection });
    const runs: string[] = [];
    for await (const wf of client.workflow.list({ query: `WorkflowId = "${workflowId}"` })) runs.unshift(wf.runId);
    for (const runId of runs) read((await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? []);
    return runs.length;
  } finally {
    await connection.close();
  }
}

/**
 * Bytes per turn of a conversation, by its `batonTurn` start records: everything from one turn's
 * start to the next is that turn's (its model calls, the update and its reply, memos, timers, the
 * compaction after it, and a continue-as-new input when one falls in it).
 */
export function conversationTurnBytes(blobDir?: string): {
  read: (events: HistoryEvent[]) => void;
  turns: TurnBytes[];
} {
  const turns: TurnBytes[] = [];
  const blobSize = (p: IPayloads) =>
    (p?.payloads ?? []).reduce((n, x) => {
      if (!blobDir || !isReference(x)) return n;
      const key = decoder.decode(x.data ?? new Uint8Array());
      return n + fs.statSync(path.join(blobDir, key.slice(0, 2), key)).size;
    }, 0);
  const read = (events: HistoryEvent[]) => {
    const models = new Set<string>();
    for (const e of events) {
      const memo = e.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields?.[TURN_MEMO];
      // A turn's start record is small, never claim-checked; its end record (with the reply) may be.
      if (memo && !isReference(memo) && fromPayload<{ phase: string }>(memo).phase === 'started')
        turns.push({ history: 0, modelCalls: 0, blobs: 0 });
      const turn = turns.at(-1);
      if (!turn) continue;
      turn.history += temporal.api.history.v1.HistoryEvent.encode(e).finish().length;
      const scheduled = e.activityTaskScheduledEventAttributes;
      if (scheduled?.activityType?.name === ActivityType.CALL_MODEL) {
        models.add(String(e.eventId));
        turn.modelCalls += payloadBytes(scheduled.input);
      }
      const completed = e.activityTaskCompletedEventAttributes;
      if (completed && models.has(String(completed.scheduledEventId)))
        turn.modelCalls += payloadBytes(completed.result);
      turn.blobs +=
        blobSize(scheduled?.input) +
        blobSize(completed?.result) +
        blobSize(e.workflowExecutionStartedEventAttributes?.input);
      turn.blobs +=
        blobSize(e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.args) +
        blobSize(e.workflowExecutionUpdateCompletedEventAttributes?.outcome?.success);
    }
  };
  return { read, turns };
}

/** Bytes of each model turn of a chain today: its `callModel` input and answer, in turn order across runs. */
export function chainTurnBytes(): { read: (events: HistoryEvent[]) => void; turns: number[] } {
  const turns: number[] = [];
  const read = (events: HistoryEvent[]) => {
    const scheduled = new Map<string, number>();
    for (const e of events) {
      const s = e.activityTaskScheduledEventAttributes;
      if (s?.activityType?.name === ActivityType.CALL_MODEL) {
        scheduled.set(String(e.eventId), turns.length);
        turns.push(payloadBytes(s.input));
      }
      const c = e.activityTaskCompletedEventAttributes;
      const turn = c ? scheduled.get(String(c.scheduledEventId)) : undefined;
      if (c && turn !== undefined) turns[turn]! += payloadBytes(c.result);
    }
  };
  return { read, turns };
}

/** The mean of `values` over the `window` turns ending at turn `t` (1-based). */
export function meanBefore(values: number[], t: number, window: number): number {
  const slice = values.slice(Math.max(0, t - window), t);
  return slice.length > 0 ? slice.reduce((a, b) => a + b, 0) / slice.length : NaN;
}
