import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { batonDataConverter } from '../payloads/codec';

/** The server address the CLI uses: `TEMPORAL_ADDRESS`, or a local dev server. */
export function temporalAddress(): string {
  return process.env.TEMPORAL_ADDRESS ?? 'localhost:7233';
}

/** The namespace the CLI uses: `TEMPORAL_NAMESPACE`, or `default`. */
export function temporalNamespace(): string {
  return process.env.TEMPORAL_NAMESPACE ?? 'default';
}

/**
 * A client and a worker connection to the configured server, with an error that says what to do.
 * The client decodes payloads as `BATON_ENCRYPTION_KEYS` / `BATON_ENCRYPTION_KEY_FILE` and `BATON_COMPRESS` say.
 */
export async function connect(address = temporalAddress()): Promise<{ client: Client; connection: Connection; native: () => Promise<NativeConnection> }> {
  const dataConverter = batonDataConverter();
  let connection: Connection;
  try {
    // Large histories (long conversations) come in pages over gRPC's 4 MB default.
    connection = await Connection.connect({ address, connectTimeout: '5 seconds', channelArgs: { 'grpc.max_receive_message_length': 128 * 2 ** 20 } });
  } catch (err) {
    throw new Error(
      `cannot reach a Temporal server at ${address} (${(err as Error).message}). ` +
        'Start one with `npx baton dev`, or set TEMPORAL_ADDRESS.',
    );
  }
  const client = new Client({ connection, namespace: temporalNamespace(), dataConverter });
  return { client, connection, native: () => NativeConnection.connect({ address }) };
}
