import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { decodeGzipPayload } from '../worker/compression';

/** A payload read from history: baton's compression undone, then Temporal's default converter. */
export function fromPayload<T = unknown>(p: Payload): T {
  return defaultPayloadConverter.fromPayload(decodeGzipPayload(p)) as T;
}

/** The first payload of a history field, read; `undefined` when there is none. */
export function fromPayloads<T = unknown>(payloads: temporal.api.common.v1.IPayloads | null | undefined): T | undefined {
  const first = payloads?.payloads?.[0];
  return first ? fromPayload<T>(first) : undefined;
}
