/**
 * Reading payloads out of history: baton's codecs undone, then Temporal's default converter. The
 * audit, replay and the tests read history through this module.
 */
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { decodeGzipPayload } from './codec';

/** One event of a workflow history, as the client fetches it. */
export type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** A payload read from history. */
export function fromPayload<T = unknown>(p: Payload): T {
  return defaultPayloadConverter.fromPayload(decodeGzipPayload(p)) as T;
}

/** The first payload of a history field, read; `undefined` when there is none. */
export function fromPayloads<T = unknown>(payloads: temporal.api.common.v1.IPayloads | null | undefined): T | undefined {
  const first = payloads?.payloads?.[0];
  return first ? fromPayload<T>(first) : undefined;
}
