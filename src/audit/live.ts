/**
 * What live records (`batonLive`) say in an audit: steering messages applied, model calls
 * interrupted, what a mid-turn policy did to a message, hand-backs between turns.
 */
import type { LiveRecord } from '../common/live';
import { LIVE_MEMO } from '../common/messages';
import { fromPayload, type HistoryEvent } from '../payloads/read';

/** The live record an event upserts, if any. */
export function liveRecordOf(e: HistoryEvent): LiveRecord | undefined {
  const field = e.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields?.[LIVE_MEMO];
  return field ? fromPayload<LiveRecord>(field) : undefined;
}

/** The conversation turn a record belongs to. */
export function turnOf(r: LiveRecord): number | undefined {
  return r.type === 'handed_back' ? r.afterTurn : r.turn;
}

/** A record as a line of a timeline. */
export function liveLine(r: LiveRecord): string {
  switch (r.type) {
    case 'steered':
      return `✎ ${r.by} steered ${r.agent}${r.interrupt ? ' (interrupting)' : ''}: ${clip(r.text)}`;
    case 'interrupted':
      return `⏹ ${r.agent}'s model call ${r.call} stopped by ${r.by}`;
    case 'message_rejected':
      return `✗ message ${r.idempotencyKey} refused while turn ${r.turn} was answered (midTurn: reject)`;
    case 'message_interrupted':
      return `⏹ message ${r.idempotencyKey} interrupted turn ${r.turn} and is answered with it (midTurn: interrupt)`;
    case 'turn_rolled_back':
      return `↶ turn ${r.turn} rolled back for message ${r.forIdempotencyKey} (midTurn: rollback)`;
    case 'handed_back':
      return `↩ ${r.from} hands the conversation back to ${r.to} (returnTo: ${r.returnTo})`;
  }
}

function clip(text: string, max = 100): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
