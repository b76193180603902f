/**
 * A fetched workflow history with baton's codecs undone, so readers of history (the audit, replay,
 * tests) see the payloads the workflow saw, whatever the deployment's compression and encryption.
 */
import { defaultPayloadConverter, type Payload, type PayloadCodec } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { MissingKeysCodec } from './encryption';

type Parent = Record<string, unknown> | unknown[];
interface Slot {
  parent: Parent;
  key: string | number;
  payload: Payload;
}

/**
 * Decode every payload of `history` in place with `codecs` (a client's
 * `options.loadedDataConverter.payloadCodecs`), and put back the messages and stack traces of
 * failures whose common attributes were encoded. Returns `history`.
 */
export async function decodeHistory<H extends temporal.api.history.v1.IHistory | Record<string, unknown>>(
  history: H,
  codecs: readonly PayloadCodec[],
): Promise<H> {
  // Without codecs, an encrypted payload still fails naming its key rather than its encoding.
  const chain = codecs.length > 0 ? codecs : [new MissingKeysCodec()];
  const slots: Slot[] = [];
  const failures: Record<string, unknown>[] = [];
  collect(history, slots, failures);
  const attributes = new Set(failures.map((f) => f.encodedAttributes));
  const data = slots.filter((s) => !attributes.has(s.payload));
  await decodeSlots(data, chain);
  await decodeFailureAttributes(
    slots.filter((s) => attributes.has(s.payload)),
    chain,
  );
  for (const failure of failures) restoreFailure(failure);
  return history;
}

async function decodeSlots(slots: Slot[], codecs: readonly PayloadCodec[]): Promise<void> {
  let payloads = slots.map((s) => s.payload);
  // Codecs decode in the reverse of their encoding order.
  for (const codec of [...codecs].reverse()) payloads = await codec.decode(payloads);
  slots.forEach((s, i) => setAt(s.parent, s.key, payloads[i]));
}

/**
 * The encoded message and stack trace of failures. One this process cannot decode (a worker with
 * another key wrote it) keeps the rest of the history readable: its message says why it is unread.
 */
async function decodeFailureAttributes(slots: Slot[], codecs: readonly PayloadCodec[]): Promise<void> {
  try {
    await decodeSlots(slots, codecs);
  } catch {
    for (const slot of slots) {
      await decodeSlots([slot], codecs).catch((err: unknown) => {
        const failure = slot.parent as Record<string, unknown>;
        failure.message = `${String(failure.message ?? 'Encoded failure')} (unread: ${err instanceof Error ? err.message : String(err)})`;
        failure.encodedAttributes = null;
      });
    }
  }
}

function collect(value: unknown, slots: Slot[], failures: Record<string, unknown>[]): void {
  if (typeof value !== 'object' || value === null || ArrayBuffer.isView(value)) return;
  const parent = value as Parent;
  const keys: (string | number)[] = Array.isArray(parent) ? parent.map((_, i) => i) : Object.keys(parent);
  if (!Array.isArray(parent) && isPayload(parent.encodedAttributes) && 'message' in parent) failures.push(parent);
  for (const key of keys) {
    const child = getAt(parent, key);
    if (isPayload(child)) slots.push({ parent, key, payload: child });
    else collect(child, slots, failures);
  }
}

/** A Temporal `Payload`: metadata that names its encoding. */
function isPayload(value: unknown): value is Payload {
  if (typeof value !== 'object' || value === null) return false;
  const metadata = (value as Payload).metadata;
  return typeof metadata === 'object' && metadata !== null && metadata.encoding instanceof Uint8Array;
}

function restoreFailure(failure: Record<string, unknown>): void {
  let attributes: unknown;
  try {
    attributes = defaultPayloadConverter.fromPayload(failure.encodedAttributes as Payload);
  } catch {
    return;
  }
  if (typeof attributes !== 'object' || attributes === null) return;
  const { message, stack_trace } = attributes as { message?: unknown; stack_trace?: unknown };
  if (typeof message === 'string') failure.message = message;
  if (typeof stack_trace === 'string') failure.stackTrace = stack_trace;
  failure.encodedAttributes = null;
}

function getAt(parent: Parent, key: string | number): unknown {
  return (parent as Record<string | number, unknown>)[key];
}

function setAt(parent: Parent, key: string | number, value: unknown): void {
  (parent as Record<string | number, unknown>)[key] = value;
}
