/**
 * Reading payloads out of history: baton's codecs undone, then Temporal's default converter. The
 * audit, replay and the tests read history through this module.
 */
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { shapeOver } from '../common/jsonShape';
import { clipText, LIMITS, sizeMessage } from '../common/limits';
import { decodeGzipPayload } from './codec';

/** One event of a workflow history, as the client fetches it. */
export type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** A payload read from history. */
export function fromPayload<T = unknown>(p: Payload): T {
  return defaultPayloadConverter.fromPayload(decodeGzipPayload(p)) as T;
}

/** The first payload of a history field, read; `undefined` when there is none. */
export function fromPayloads<T = unknown>(
  payloads: temporal.api.common.v1.IPayloads | null | undefined,
): T | undefined {
  const first = payloads?.payloads?.[0];
  return first ? fromPayload<T>(first) : undefined;
}

/** What the audit shows of a payload from outside it could not read, or that is too deep to show. */
export interface UnreadPayload {
  unread: string;
}

/**
 * The first payload of a history field that came from outside (a start input, a signal's or an
 * update's arguments), read without trusting it: what is not JSON, or nests deeper than anything
 * baton accepts (see `LIMITS.jsonDepth`; carried states included), is an {@link UnreadPayload}
 * saying why, so readers of history never fail on what a client sent. `undefined` when there is none.
 */
export function fromOutsidePayloads(payloads: temporal.api.common.v1.IPayloads | null | undefined): unknown {
  const first = payloads?.payloads?.[0];
  if (!first) return undefined;
  let value: unknown;
  try {
    value = fromPayload(first);
  } catch (err) {
    return {
      unread: `not JSON: ${clipText(err instanceof Error ? err.message : String(err), 200)}`,
    } satisfies UnreadPayload;
  }
  const [over] = shapeOver('payload', value, { depth: LIMITS.jsonDepth * 4, entries: Number.POSITIVE_INFINITY });
  return over ? ({ unread: sizeMessage(over) } satisfies UnreadPayload) : value;
}
