/**
 * The worker's log of payloads it cannot decrypt. A worker without the key a chain was encrypted
 * with fails that chain's workflow tasks (and its activities) until a worker with the key runs it;
 * the log says which chain, which key, and where to configure it, once per chain and key.
 */
import type { DataConverter, Payload, PayloadCodec, SerializationContext } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';
import { PayloadDecryptionError } from '../payloads/encryption';

/** Chains and keys already logged, so a task failing again and again logs once; bounded. */
const logged = new Set<string>();
const MAX_LOGGED = 1000;

/** `converter` with its codecs logging each payload they cannot decrypt. */
export function loggingDecryptionFailures(converter: DataConverter): DataConverter {
  return { ...converter, payloadCodecs: (converter.payloadCodecs ?? []).map(withDecryptionLog) };
}

function withDecryptionLog(codec: PayloadCodec): PayloadCodec {
  return {
    encode: (payloads: Payload[], context?: SerializationContext) => codec.encode(payloads, context),
    async decode(payloads: Payload[], context?: SerializationContext) {
      try {
        return await codec.decode(payloads, context);
      } catch (err) {
        if (err instanceof PayloadDecryptionError) logOnce(err, context);
        throw err;
      }
    },
  };
}

function logOnce(err: PayloadDecryptionError, context: SerializationContext | undefined): void {
  const workflowId = context?.workflowId;
  const key = `${workflowId ?? ''}\n${err.keyId}`;
  if (logged.has(key)) return;
  if (logged.size >= MAX_LOGGED) logged.clear();
  logged.add(key);
  const where = workflowId ? `chain ${workflowId}` : 'a chain';
  Runtime.instance().logger.error(
    `baton worker cannot decrypt ${where}: ${err.message}; its workflow tasks fail until a worker with key "${err.keyId}" runs it`,
    {
      workflowId,
      keyId: err.keyId,
      configuredKeys: err.configured,
    },
  );
}
