import { Client, type Connection } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import { connectClient, temporalConfig } from '../client/connect';
import { batonDataConverter } from '../payloads/codec';
import { closeWithCommand } from './commandScope';

/**
 * Where the CLI connects, as Temporal's own tools read it: `TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`,
 * `TEMPORAL_API_KEY`, `TEMPORAL_TLS*`, `TEMPORAL_PROFILE` and the `temporal.toml` profiles
 * (`TEMPORAL_CONFIG_FILE`); a local dev server when none is set.
 */
function cliConfig() {
  return temporalConfig();
}

/** The server address the CLI uses. */
export function temporalAddress(): string {
  return cliConfig().connectionOptions.address ?? 'localhost:7233';
}

/** The namespace the CLI uses. */
export function temporalNamespace(): string {
  return cliConfig().namespace;
}

/**
 * A client and a worker connection to the configured server (see {@link temporalAddress}), with an
 * error that says what to do. The client decodes payloads as `BATON_ENCRYPTION_KEYS` /
 * `BATON_ENCRYPTION_KEY_FILE` and `BATON_COMPRESS` say.
 */
export async function connect(): Promise<{
  client: Client;
  connection: Connection;
  native: () => Promise<NativeConnection>;
}> {
  const { connectionOptions, namespace } = cliConfig();
  const address = connectionOptions.address ?? 'localhost:7233';
  const dataConverter = batonDataConverter();
  // Large histories come in pages over gRPC's 4 MB default: connectClient lifts the limit.
  const connection = await connectClient({ ...connectionOptions, address, connectTimeout: '5 seconds' });
  closeWithCommand(connection);
  const client = new Client({ connection, namespace, dataConverter });
  // The worker package is loaded by the commands that run a worker, not by those that only talk to the server.
  const native = () =>
    (require('@temporalio/worker') as { NativeConnection: typeof NativeConnection }).NativeConnection.connect({
      ...connectionOptions,
      address,
    });
  return { client, connection, native };
}
