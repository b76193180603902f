/**
 * The workflows read what arrives themselves. Temporal's SDK decodes a workflow's input and its
 * handlers' arguments before any workflow code runs, and a payload it cannot decode (`NaN`, a
 * truncated text, another encoding) would fail the workflow task on every attempt: the chain
 * wedged, or its handler failed the chain. So baton's workflows and handlers take their arguments
 * as raw payloads ({@link rawValueTypeInfo}) and read them here: JSON becomes the value the
 * validators check, anything else an {@link UnreadableArrival} they refuse; a payload much larger
 * than its limit is refused by its size without being read.
 */
import { defaultPayloadConverter, RawValue, rawValueTypeInfo } from '@temporalio/common';
import { defineWorkflowOptions } from '@temporalio/workflow';
import { UnreadableArrival } from '../src/common/arrival';
import { clipText, type SizeProblem } from '../src/common/limits';
import { noteRefusedBytes } from './historyLimits';

/** Arguments as raw payloads, for a workflow or a handler. */
const RAW = { inputTypes: [rawValueTypeInfo] };

/** `def` with its argument taken as a raw payload: for `setHandler` in baton's workflows only (clients send plain values). */
export function rawArgs<D extends { name: string }>(def: D): D {
  return { ...def, typeInfo: RAW };
}

/**
 * `workflow` as workers register it: it takes its input as a raw payload (and reads it with
 * {@link arrival}), and a defect fails the run rather than its task. The function itself stays
 * plain for callers that start it by reference (a child workflow of a service's own).
 */
export function readingItsInput<F extends (input: never) => Promise<unknown>>(workflow: F): F {
  const registered = ((input: never) => workflow(input)) as F;
  defineWorkflowOptions(registered, {
    workflowDefinitionOptions: { failureExceptionTypes: [Error] },
    staticOptions: { typeInfo: RAW },
  });
  return registered;
}

/** How much larger than its limit a payload may be as sent (spacing, escapes) before it is refused unread. */
const AS_SENT = 2;

/**
 * What arrived, read: the JSON value, or an {@link UnreadableArrival} saying why not. A value that
 * is not a raw payload (an absent argument, or a caller that passed the value itself) is taken as
 * it is. With `limit`, a payload over `AS_SENT` times its limit in bytes is refused without being read.
 */
export function arrival(arg: unknown, limit?: { field: string; bytes: number }): unknown {
  if (!(arg instanceof RawValue)) return arg;
  const payload = arg.payload;
  const size = payload.data?.length ?? 0;
  if (limit && size > AS_SENT * limit.bytes + 4096) {
    // In history all the same: the run hands over before many such land in it (historyLimits.ts).
    noteRefusedBytes(size);
    const problem: SizeProblem = { field: limit.field, size, limit: limit.bytes, unit: 'bytes' };
    return new UnreadableArrival(`is ${size} bytes`, problem);
  }
  const encoding = payload.metadata?.encoding ? new TextDecoder().decode(payload.metadata.encoding) : undefined;
  if (encoding === 'binary/null') return undefined;
  if (encoding !== 'json/plain')
    return new UnreadableArrival(
      `is not JSON: its payload's encoding is ${JSON.stringify(clipText(encoding ?? 'missing', 64))}, and baton reads JSON ("json/plain")`,
    );
  try {
    // What the SDK's JSON converter does, with the context's native decoder rather than the SDK's
    // JavaScript one: thousands of signals may arrive in one activation.
    return payload.data && payload.data.length > 0
      ? (JSON.parse(new TextDecoder().decode(payload.data)) as unknown)
      : defaultPayloadConverter.fromPayload(payload);
  } catch (err) {
    return new UnreadableArrival(`is not JSON (${clipText(err instanceof Error ? err.message : String(err), 200)})`);
  }
}
