import { gunzipSync, gzipSync } from 'node:zlib';
import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';

/** The payload encoding of baton's compression codec. */
export const GZIP_ENCODING = 'binary/gzip';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Gzips payloads of `minBytes` or more (conversations, tool results) before they reach Temporal, so
 * history grows by the compressed size. Client, workers and replay checks must all use it.
 */
export class GzipPayloadCodec implements PayloadCodec {
  constructor(private readonly minBytes = 1024) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => {
      const bytes = temporal.api.common.v1.Payload.encode(p).finish();
      if (bytes.length < this.minBytes) return p;
      return { metadata: { encoding: encoder.encode(GZIP_ENCODING) }, data: gzipSync(bytes) };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map(decodeGzipPayload);
  }
}

/** Undo {@link GzipPayloadCodec} on one payload; other payloads pass through. */
export function decodeGzipPayload(p: Payload): Payload {
  const encoding = p.metadata?.encoding;
  if (!encoding || decoder.decode(encoding) !== GZIP_ENCODING || !p.data) return p;
  return temporal.api.common.v1.Payload.decode(gunzipSync(p.data));
}

/**
 * The data converter for a compressed deployment; pass it to the Temporal `Client` your `Baton`
 * uses, and set `compress: true` on `createWorker`.
 * @example new Client({ connection, dataConverter: batonDataConverter({ compress: true }) })
 */
export function batonDataConverter(options: { compress?: boolean; minBytes?: number } = {}): DataConverter {
  return options.compress ? { payloadCodecs: [new GzipPayloadCodec(options.minBytes)] } : {};
}
