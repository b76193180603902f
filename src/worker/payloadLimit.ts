/**
 * The payload limit a worker records with its chains' team snapshots (`TeamSpec.payloadLimit`), so
 * a chain whose conversation outgrows what Temporal takes in one payload fails with a typed error
 * rather than failing its workflow task again and again.
 */
import type { NativeConnection } from '@temporalio/worker';
import type { PayloadCodecOptions } from '../payloads/keys';

/** What the data converter and codecs add to a payload (metadata, an encryption key id, nonce and tag). */
export const PAYLOAD_OVERHEAD_BYTES = 1024;

/**
 * The namespace's blob size limit less {@link PAYLOAD_OVERHEAD_BYTES}, for a worker with baton's
 * `codec`; none when the codec compresses or claim-checks payloads (then a conversation larger than
 * the limit may still fit), when the data converter is the application's own (`codec` undefined),
 * or when the server does not say its limits.
 */
export async function chainPayloadLimit(
  connection: NativeConnection | undefined,
  namespace: string,
  codec: PayloadCodecOptions | undefined,
): Promise<number | undefined> {
  if (!connection || !codec || codec.compress || codec.claimCheck) return undefined;
  try {
    const { namespaceInfo } = await connection.workflowService.describeNamespace({ namespace });
    const limit = Number(namespaceInfo?.limits?.blobSizeLimitError ?? 0);
    return limit > PAYLOAD_OVERHEAD_BYTES ? limit - PAYLOAD_OVERHEAD_BYTES : undefined;
  } catch {
    return undefined;
  }
}
