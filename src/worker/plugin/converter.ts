/**
 * baton's data converter on a worker or client that may have one of its own: a worker encodes
 * every payload with one chain of codecs, so the two must agree or one must give way.
 */
import type { DataConverter } from '@temporalio/common';
import { UserError } from '../../common/errors';
import type { PayloadCodecOptions } from '../../payloads/keys';

/** Whether `codec` asks for anything (compression, encryption, a claim check, external storage). */
export function codecConfigured(codec: PayloadCodecOptions): boolean {
  return Boolean(codec.compress || codec.encryptionKeys || codec.tenantKeys || codec.claimCheck);
}

/**
 * The data converter of a worker or client given `existing` (the application's) and baton's.
 * With no codec configured for baton, the application's codecs stay (baton's chains are encoded as
 * the rest); with one, the application's own codecs or failure converter would be replaced, which
 * is refused, naming both ways out.
 */
export function mergeDataConverter(
  existing: DataConverter | undefined,
  baton: DataConverter,
  codec: PayloadCodecOptions,
): DataConverter {
  if (!existing) return baton;
  const own = existing.payloadCodecs ?? [];
  if (own.length === 0 && !existing.failureConverterPath && !existing.externalStorage) return { ...existing, ...baton };
  if (!codecConfigured(codec)) return existing;
  const theirs = [
    own.length > 0 ? `${own.length} payload codec(s)` : '',
    existing.failureConverterPath ? 'a failure converter' : '',
    existing.externalStorage ? 'external storage' : '',
  ]
    .filter(Boolean)
    .join(' and ');
  throw new UserError(
    `this worker's (or client's) data converter already has ${theirs}, and baton's codec options (compression, encryption or a claim check, from BatonPlugin's codec or the BATON_* environment) would replace them: ` +
      "keep yours with BatonPlugin({ codec: false }) (baton's chains are then encoded with your codecs), or leave them out and give their job to baton's codec",
  );
}
