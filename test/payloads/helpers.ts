import { randomBytes } from 'node:crypto';
import { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { Team } from '../../src/agents/team';
import { Baton } from '../../src/client/baton';
import type { DevServer } from '../../src/devserver/server';
import type { ModelProviders } from '../../src/models/provider';
import { batonDataConverter } from '../../src/payloads/codec';
import type { EncryptionKey } from '../../src/payloads/encryption';
import type { PayloadCodecOptions } from '../../src/payloads/keys';
import { createWorker } from '../../src/worker';
import { taskQueue } from '../helpers/temporal';

/** A fresh 32-byte key under `id`. */
export function encryptionKey(id: string): EncryptionKey {
  return { id, key: randomBytes(32) };
}

/** Keys as `BATON_ENCRYPTION_KEYS` takes them. */
export function keysEnv(keys: EncryptionKey[]): string {
  return keys.map((k) => `${k.id}:${Buffer.from(k.key).toString('base64')}`).join(',');
}

/** A client whose data converter is `codec`'s. */
export function codecClient(env: DevServer, codec: PayloadCodecOptions): Client {
  return new Client({ connection: env.connection, dataConverter: batonDataConverter(codec) });
}

/** Run `fn` with a worker and a client that both use `codec`. */
export async function withCodec<T>(
  env: DevServer,
  team: Team,
  codec: PayloadCodecOptions,
  fn: (baton: Baton, client: Client) => Promise<T>,
  providers?: ModelProviders,
): Promise<T> {
  const queue = taskQueue();
  const client = codecClient(env, codec);
  const worker = await createWorker({
    team,
    connection: env.nativeConnection,
    taskQueue: queue,
    codec,
    ...(providers ? { providers } : {}),
  });
  return worker.runUntil(fn(new Baton({ client, taskQueue: queue }), client));
}

/**
 * Everything the server keeps about a chain, as the protobuf bytes it serves: every page of every
 * run's history, and the description (memo, search attributes, pending activities).
 */
export async function rawChainBytes(client: Client, workflowId: string): Promise<Buffer> {
  const namespace = client.options.namespace;
  const service = client.workflowService;
  const parts: Uint8Array[] = [];
  const description = await service.describeWorkflowExecution({ namespace, execution: { workflowId } });
  parts.push(temporal.api.workflowservice.v1.DescribeWorkflowExecutionResponse.encode(description).finish());
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await service.getWorkflowExecutionHistory({ namespace, execution: { workflowId }, nextPageToken });
    parts.push(temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryResponse.encode(page).finish());
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return Buffer.concat(parts);
}

/** Which of `needles` occur in `haystack` (as UTF-8). */
export function found(haystack: Buffer, needles: string[]): string[] {
  return needles.filter((n) => haystack.includes(Buffer.from(n, 'utf8')));
}
