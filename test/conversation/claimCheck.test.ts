import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { Baton, Team } from '../../src';
import {
  batonDataConverter,
  BLOB_STORE_DRIVER_NAME,
  blobStoreDriver,
  CLAIM_CHECK_ENCODING,
  ExternalStorageReadCodec,
  ClaimCheckError,
  ClaimCheckPayloadCodec,
  codecOptionsFromEnv,
  CodecConfigError,
  FileBlobStore,
  type PayloadCodecOptions,
} from '../../src/payloads';
import { batonPayloadCodecs } from '../../src/payloads/codec';
import { scriptedAgent } from '../helpers/agents';
import { useTemporalServer, withWorker } from '../helpers/temporal';

const server = useTemporalServer();

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'baton-claim-'));
const encoding = (p: { metadata?: Record<string, Uint8Array> | null }) =>
  new TextDecoder().decode(p.metadata?.encoding ?? new Uint8Array());

describe('claim-check codec', () => {
  it('stores large payloads as blobs and leaves a reference; small ones stay as they are', async () => {
    const dir = tempDir();
    const codec = new ClaimCheckPayloadCodec(new FileBlobStore(dir), 1024);
    const large = defaultPayloadConverter.toPayload({ text: 'x'.repeat(5000) });
    const small = defaultPayloadConverter.toPayload({ text: 'short' });
    const [ref, same, kept] = await codec.encode([large, large, small]);
    expect(encoding(ref!)).toBe(CLAIM_CHECK_ENCODING);
    expect(ref!.data!.length).toBe(64);
    expect(same).toEqual(ref);
    expect(kept).toBe(small);
    expect(fs.readdirSync(dir, { recursive: true }).filter((f) => String(f).length > 60)).toHaveLength(1);
    const [back] = await codec.decode([ref!]);
    expect(defaultPayloadConverter.fromPayload(back!)).toEqual({ text: 'x'.repeat(5000) });

    const key = new TextDecoder().decode(ref!.data!);
    fs.writeFileSync(path.join(dir, key.slice(0, 2), key), 'changed');
    await expect(codec.decode([ref!])).rejects.toBeInstanceOf(ClaimCheckError);
    fs.rmSync(path.join(dir, key.slice(0, 2), key));
    await expect(codec.decode([ref!])).rejects.toThrow(/is not in/);
  });

  it('is configured from the environment, after compression and encryption', () => {
    expect(codecOptionsFromEnv({ BATON_CLAIM_CHECK_DIR: '/blobs', BATON_CLAIM_CHECK_MIN_BYTES: '2048' })).toEqual({
      claimCheck: { dir: '/blobs', minBytes: 2048 },
    });
    expect(() => codecOptionsFromEnv({ BATON_CLAIM_CHECK_MIN_BYTES: '2048' })).toThrow(CodecConfigError);
    expect(() => codecOptionsFromEnv({ BATON_CLAIM_CHECK_DIR: '/blobs', BATON_CLAIM_CHECK_MIN_BYTES: 'lots' })).toThrow(
      CodecConfigError,
    );
    const codecs = batonPayloadCodecs({ compress: true, claimCheck: { dir: '/blobs' } });
    expect(codecs.at(-1)).toBeInstanceOf(ClaimCheckPayloadCodec);
    // Through Temporal's external storage: the SDK offloads, and the last codec only reads references.
    expect(codecOptionsFromEnv({ BATON_CLAIM_CHECK_DIR: '/blobs', BATON_CLAIM_CHECK_VIA: 'external-storage' })).toEqual(
      { claimCheck: { dir: '/blobs', via: 'external-storage' } },
    );
    expect(() => codecOptionsFromEnv({ BATON_CLAIM_CHECK_DIR: '/blobs', BATON_CLAIM_CHECK_VIA: 's3' })).toThrow(
      'BATON_CLAIM_CHECK_VIA must be "codec" or "external-storage", not "s3"',
    );
    expect(() => codecOptionsFromEnv({ BATON_CLAIM_CHECK_VIA: 'external-storage' })).toThrow(
      'BATON_CLAIM_CHECK_VIA needs BATON_CLAIM_CHECK_DIR',
    );
    const converter = batonDataConverter({ claimCheck: { dir: '/blobs', via: 'external-storage', minBytes: 1000 } });
    expect(converter.payloadCodecs?.at(-1)).toBeInstanceOf(ExternalStorageReadCodec);
    expect(converter.externalStorage?.payloadSizeThreshold).toBe(1000);
    expect(converter.externalStorage?.drivers.map((d) => d.name)).toEqual([BLOB_STORE_DRIVER_NAME]);
  });

  it('offers Temporal external storage a driver over a blob store, which refuses a blob that changed', async () => {
    const dir = tempDir();
    const driver = blobStoreDriver(new FileBlobStore(dir));
    const payload = defaultPayloadConverter.toPayload({ text: 'x'.repeat(5000) });
    const [claim] = await driver.store({}, [payload]);
    const [back] = await driver.retrieve({}, [claim!]);
    expect(defaultPayloadConverter.fromPayload(back!)).toEqual({ text: 'x'.repeat(5000) });
    const key = claim!.claimData.key!;
    fs.writeFileSync(path.join(dir, key.slice(0, 2), key), 'changed');
    await expect(driver.retrieve({}, [claim!])).rejects.toThrow(
      `externally stored payload ${key} does not hold the bytes it was stored with`,
    );
  });

  it('keeps a conversation’s model inputs out of history; the history and audit read them back', async () => {
    const codec: PayloadCodecOptions = { claimCheck: { dir: tempDir(), minBytes: 512 } };
    const long = (n: number) => `message ${n}: ${'a long description of the problem. '.repeat(20)}`;
    const team = new Team([scriptedAgent('solo', [{ text: 'one' }, { text: 'two' }, { text: 'three' }])]);
    await withWorker(
      server.env,
      team,
      async (_plain, queue) => {
        const baton = new Baton({
          client: new Client({ connection: server.env.connection, dataConverter: batonDataConverter(codec) }),
          taskQueue: queue,
        });
        const chat = baton.conversation('solo');
        for (let n = 1; n <= 3; n++) await chat.send(long(n));
        // As stored: every payload of the model calls and updates at or over 512 bytes is a reference.
        const raw = await server.env.client.workflow.getHandle(chat.id).fetchHistory();
        const payloads = (raw.events ?? []).flatMap((e) => [
          ...(e.activityTaskScheduledEventAttributes?.input?.payloads ?? []),
          ...(e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.args?.payloads ?? []),
        ]);
        const refs = payloads.filter((p) => encoding(p) === CLAIM_CHECK_ENCODING);
        expect(refs.length).toBeGreaterThanOrEqual(6);
        expect(
          payloads.filter((p) => encoding(p) !== CLAIM_CHECK_ENCODING).every((p) => (p.data?.length ?? 0) < 512),
        ).toBe(true);
        expect((await chat.history()).map((t) => [t.message, t.output])).toEqual([
          [long(1), 'one'],
          [long(2), 'two'],
          [long(3), 'three'],
        ]);
      },
      { codec },
    );
  });
});
