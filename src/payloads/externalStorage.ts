/**
 * The claim check through Temporal's own external payload storage (`DataConverter.externalStorage`,
 * SDK 1.24): the SDK offloads payloads of `minBytes` or more (after baton's compression and
 * encryption) through a storage driver and writes Temporal's reference (`ExternalStorageReference`)
 * in their place, which any SDK with the same driver can read. The driver is a `BlobStore` of
 * baton's (a directory, S3, …) or any Temporal `StorageDriver`.
 */
import { createHash } from 'node:crypto';
import {
  ExternalStorage,
  type Payload,
  type PayloadCodec,
  type StorageDriver,
  StorageDriverClaim,
} from '@temporalio/common';
import { decodeReferencePayload, isReferencePayload } from '@temporalio/common/lib/internal-non-workflow';
import { temporal } from '@temporalio/proto';
import { type BlobStore, ClaimCheckError, type ClaimCheckOptions, FileBlobStore } from './claimCheck';

/** The name baton's driver writes into references; the drivers of every reader must include one of this name. */
export const BLOB_STORE_DRIVER_NAME = 'baton-blob-store';

/**
 * A Temporal storage driver over a baton `BlobStore`: each payload is stored under the SHA-256 of
 * its encoded bytes (writing it twice is harmless), and a blob that changed is refused on read.
 */
export function blobStoreDriver(store: BlobStore, name = BLOB_STORE_DRIVER_NAME): StorageDriver {
  return {
    name,
    type: 'baton.blobstore',
    async store(_context, payloads) {
      return Promise.all(
        payloads.map(async (p) => {
          const bytes = temporal.api.common.v1.Payload.encode(p).finish();
          const key = sha256(bytes);
          await store.put(key, bytes);
          return new StorageDriverClaim({ key });
        }),
      );
    },
    async retrieve(_context, claims) {
      return Promise.all(
        claims.map(async (claim) => {
          const key = claim.claimData.key;
          if (typeof key !== 'string')
            throw new ClaimCheckError(
              `a reference to external storage names no key: ${JSON.stringify(claim.claimData)}`,
            );
          const bytes = await store.get(key);
          if (sha256(bytes) !== key)
            throw new ClaimCheckError(`externally stored payload ${key} does not hold the bytes it was stored with`);
          return temporal.api.common.v1.Payload.decode(bytes);
        }),
      );
    },
  };
}

/** Whether `options` keep large payloads in Temporal's external storage rather than through baton's claim-check codec. */
export function usesExternalStorage(options: ClaimCheckOptions | undefined): boolean {
  return options?.via === 'external-storage' || options?.driver !== undefined;
}

/** Temporal's `ExternalStorage` for `options`: their driver, else a driver over their store or directory. */
export function batonExternalStorage(options: ClaimCheckOptions): ExternalStorage {
  const store = options.store ?? (options.dir ? new FileBlobStore(options.dir) : undefined);
  const driver = options.driver ?? (store ? blobStoreDriver(store) : undefined);
  if (!driver)
    throw new ClaimCheckError(
      'external storage needs a driver, a store or a directory (dir, or BATON_CLAIM_CHECK_DIR)',
    );
  return new ExternalStorage({ drivers: [driver], payloadSizeThreshold: options.minBytes ?? 4096 });
}

/**
 * A codec that reads references to external storage and passes everything else through, for
 * readers of history outside the SDK's own paths (the audit, run events, the codec server): the
 * SDK's workers and clients resolve references before any codec sees them. Last in the chain, so
 * it decodes first.
 */
export class ExternalStorageReadCodec implements PayloadCodec {
  constructor(private readonly storage: ExternalStorage) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads;
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.all(
      payloads.map(async (p) => {
        if (!isReferencePayload(p)) return p;
        const reference = decodeReferencePayload(p);
        const driver = this.storage.getDriver(reference.driverName);
        if (!driver)
          throw new ClaimCheckError(
            `a payload is in external storage driver "${reference.driverName}", which is not configured here (configured: ${this.storage.drivers.map((d) => d.name).join(', ')})`,
          );
        const [payload] = await driver.retrieve({}, [new StorageDriverClaim(reference.claimData)]);
        return payload!;
      }),
    );
  }
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
