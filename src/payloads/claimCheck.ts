/**
 * Claim check: payloads of `minBytes` or more (conversations sent to the model, long answers and
 * tool results) go to a blob store, and history keeps only a reference — so history grows by a
 * few dozen bytes per large payload, whatever its size. Blobs are content-addressed (SHA-256 of the
 * encoded payload): writing one twice is harmless, and a blob that changed is refused on read.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Payload, PayloadCodec, StorageDriver } from '@temporalio/common';
import { temporal } from '@temporalio/proto';

/** The payload encoding of a reference to a blob; its data is the blob's key. */
export const CLAIM_CHECK_ENCODING = 'binary/baton-claim-check';

/** Where claim-checked payloads live. Keys are 64 hex digits; a blob never changes once written. */
export interface BlobStore {
  /** Store `data` under `key`; a key that exists already holds the same bytes. */
  put(key: string, data: Uint8Array): Promise<void>;
  /** The bytes under `key`; throws {@link ClaimCheckError} when there are none. */
  get(key: string): Promise<Uint8Array>;
}

/** How payloads are claim-checked. */
export interface ClaimCheckOptions {
  /** A directory for the default store ({@link FileBlobStore}); shared by every worker and client, e.g. a network volume. */
  dir?: string;
  /** Any other store (S3 or another object store): takes the place of `dir`. */
  store?: BlobStore;
  /** The smallest payload (encoded, after compression and encryption) stored as a blob, in bytes. @default 4096 */
  minBytes?: number;
  /**
   * How payloads reach the store: baton's claim-check codec, or Temporal's own external payload
   * storage (the SDK offloads them through a storage driver over `store` or `dir`, and history holds
   * Temporal's `ExternalStorageReference`, which other SDKs with the same driver read). See
   * docs/operating.md. @default "codec"
   */
  via?: 'codec' | 'external-storage';
  /** A Temporal `StorageDriver` of your own (in place of `dir` or `store`); implies `via: 'external-storage'`. */
  driver?: StorageDriver;
}

/** A blob that cannot be read back: missing, or not the bytes its key names. */
export class ClaimCheckError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Blobs as files, `<dir>/<first two hex digits>/<key>`, each written whole (a temporary file, then a rename). */
export class FileBlobStore implements BlobStore {
  constructor(readonly dir: string) {}

  async put(key: string, data: Uint8Array): Promise<void> {
    const file = this.file(key);
    if (await exists(file)) return;
    await fs.mkdir(path.dirname(file), { recursive: true });
    const partial = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.part`;
    await fs.writeFile(partial, data);
    await fs.rename(partial, file);
  }

  async get(key: string): Promise<Uint8Array> {
    try {
      return await fs.readFile(this.file(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT')
        throw new ClaimCheckError(`claim-checked payload ${key} is not in ${this.dir}`);
      throw err;
    }
  }

  private file(key: string): string {
    if (!/^[0-9a-f]{64}$/.test(key)) throw new ClaimCheckError(`not a claim-check key: ${JSON.stringify(key)}`);
    return path.join(this.dir, key.slice(0, 2), key);
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The payload codec that puts payloads of `minBytes` or more into `store` and leaves a reference in their place. */
export class ClaimCheckPayloadCodec implements PayloadCodec {
  constructor(
    private readonly store: BlobStore,
    private readonly minBytes = 4096,
  ) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.all(
      payloads.map(async (p) => {
        const bytes = temporal.api.common.v1.Payload.encode(p).finish();
        if (bytes.length < this.minBytes) return p;
        const key = sha256(bytes);
        await this.store.put(key, bytes);
        return { metadata: { encoding: encoder.encode(CLAIM_CHECK_ENCODING) }, data: encoder.encode(key) };
      }),
    );
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.all(
      payloads.map(async (p) => {
        const encoding = p.metadata?.encoding;
        if (!encoding || decoder.decode(encoding) !== CLAIM_CHECK_ENCODING || !p.data) return p;
        const key = decoder.decode(p.data);
        const bytes = await this.store.get(key);
        if (sha256(bytes) !== key)
          throw new ClaimCheckError(`claim-checked payload ${key} does not hold the bytes it was stored with`);
        return temporal.api.common.v1.Payload.decode(bytes);
      }),
    );
  }
}

/** The claim-check codec of `options`: their store, else files in their directory. */
export function claimCheckCodec(options: ClaimCheckOptions): ClaimCheckPayloadCodec {
  const store = options.store ?? (options.dir ? new FileBlobStore(options.dir) : undefined);
  if (!store) throw new ClaimCheckError('claim check needs a directory (dir, or BATON_CLAIM_CHECK_DIR) or a store');
  return new ClaimCheckPayloadCodec(store, options.minBytes);
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}
