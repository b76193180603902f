import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { claimCheckCodec } from './claimCheck';
import { batonExternalStorage, ExternalStorageReadCodec, usesExternalStorage } from './externalStorage';
import { AesGcmPayloadCodec, MissingKeysCodec } from './encryption';
import { codecOptionsFromEnv, type PayloadCodecOptions } from './keys';
import { TenantKeysCodec } from './tenantKeys';

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
    if (this.minBytes === Infinity) return payloads;
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
 * baton's payload codecs for one configuration, in the order Temporal applies them when encoding:
 * compression, then encryption, then the claim check. Gzipped payloads always decode, so histories written while
 * compression was on still read after it is turned off. With the claim check through Temporal's
 * external storage, the SDK offloads payloads after these codecs, and the last codec only reads its
 * references, for readers of history that are not the SDK's.
 */
export function batonPayloadCodecs(options: PayloadCodecOptions, storage = externalStorageOf(options)): PayloadCodec[] {
  const gzip = new GzipPayloadCodec(options.compress ? options.minBytes : Infinity);
  // Without keys, an encrypted payload fails naming its key, not as an unknown encoding.
  const codecs: PayloadCodec[] = [gzip, encryptionOf(options)];
  if (storage) return [...codecs, new ExternalStorageReadCodec(storage)];
  return options.claimCheck ? [...codecs, claimCheckCodec(options.claimCheck)] : codecs;
}

function encryptionOf(options: PayloadCodecOptions): PayloadCodec {
  if (options.tenantKeys) return new TenantKeysCodec(options.tenantKeys, options.encryptionKeys);
  return options.encryptionKeys ? new AesGcmPayloadCodec(options.encryptionKeys) : new MissingKeysCodec();
}

function externalStorageOf(options: PayloadCodecOptions) {
  return options.claimCheck && usesExternalStorage(options.claimCheck)
    ? batonExternalStorage(options.claimCheck)
    : undefined;
}

/**
 * The module of the failure converter that encodes failure messages and stack traces (compiled in
 * the package, TypeScript in baton's own checkout): Temporal loads failure converters by path.
 */
export const ENCODED_FAILURES_PATH = ['failureConverter.js', 'failureConverter.ts']
  .map((f) => path.join(__dirname, f))
  .find((f) => fs.existsSync(f))!;

/**
 * The data converter for baton's payload codecs: pass it to the Temporal `Client` your `Baton`
 * uses; `createWorker` and `connectBaton` build the same from their `codec` option. With
 * encryption, failure messages and stack traces are encrypted too (they carry tool errors): a
 * worker then bundles the workflows with that failure converter.
 * @param options @default the environment's ({@link codecOptionsFromEnv}: `BATON_ENCRYPTION_KEYS`, `BATON_ENCRYPTION_KEY_FILE`, `BATON_COMPRESS`)
 * @example new Client({ connection, dataConverter: batonDataConverter({ compress: true, encryptionKeys }) })
 */
export function batonDataConverter(options: PayloadCodecOptions = codecOptionsFromEnv()): DataConverter {
  const externalStorage = externalStorageOf(options);
  return {
    payloadCodecs: batonPayloadCodecs(options, externalStorage),
    ...(options.encryptionKeys || options.tenantKeys ? { failureConverterPath: ENCODED_FAILURES_PATH } : {}),
    ...(externalStorage ? { externalStorage } : {}),
  };
}
