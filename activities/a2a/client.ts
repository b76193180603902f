/**
 * The official `@a2a-js/sdk` client for a remote agent: its endpoint (given, or read from its Agent
 * Card), the worker's credentials on every request, and which failures a retry can fix.
 */
import { A2A_PROTOCOL_VERSION, type AgentCard } from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { A2AError, JsonRpcTransportError } from '@a2a-js/sdk/errors';
import { ApplicationFailure } from '@temporalio/common';
import type { RemoteAgent } from '../../src/agents/remote';
import { RemoteAgentError, toApplicationFailure } from '../../src/common/errors';
import { clipText, LIMITS } from '../../src/common/limits';

/** A client of one remote agent, and the HTTP status of its latest answer. */
export interface RemoteClient {
  client: Client;
  /** The status of the last HTTP answer, for telling a refusal from a fault. */
  lastStatus(): number | undefined;
}

/** A client for `remote`: its requests carry the worker's credentials for it. */
export async function remoteClient(remote: RemoteAgent): Promise<RemoteClient> {
  let status: number | undefined;
  const fetchImpl: typeof fetch = async (url, init) => {
    const headers = new Headers(init?.headers);
    for (const [name, value] of Object.entries(await remote.headers())) headers.set(name, value);
    const res = await fetch(url, { ...init, headers });
    status = res.status;
    return res;
  };
  const legacyCompat = { enabled: true };
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl, legacyCompat }),
      // The task is sent once and then read: a call never blocks on a task it could lose.
      clientConfig: { polling: true },
    }),
  );
  const { url, card } = remote.spec;
  const client =
    card !== undefined
      ? await factory.createFromUrl(card, '')
      : await factory.createFromAgentCard(endpointCard(remote.id, url!));
  return { client, lastStatus: () => status };
}

/** A card for an agent known only by its JSON-RPC endpoint. */
function endpointCard(id: string, url: string): AgentCard {
  return {
    name: id,
    description: id,
    supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION }],
    provider: undefined,
    version: '1',
    capabilities: { streaming: false, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [],
    signatures: [],
  };
}

/**
 * `err` as the activity fails with it: a refusal by the remote (an HTTP status of 4xx but 408 and
 * 429, an A2A error such as an unknown task) as a non-retryable {@link RemoteAgentError}; anything
 * else (unreachable, 5xx, 429, an internal JSON-RPC error) as it is, for Temporal to retry.
 */
export function callFailure(remote: string, err: unknown, status: number | undefined, taskId?: string): unknown {
  if (err instanceof ApplicationFailure) return err;
  const refused = status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429;
  const a2a = err instanceof A2AError && !(err instanceof JsonRpcTransportError);
  if (!refused && !a2a) return err;
  const reason = clipText(err instanceof Error ? err.message : String(err), LIMITS.recordedReasonChars);
  return toApplicationFailure(
    new RemoteAgentError({ remote, reason, ...(taskId ? { taskId } : {}), ...(refused ? { status } : {}) }),
  );
}
