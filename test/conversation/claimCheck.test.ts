import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { Baton, batonDataConverter, CLAIM_CHECK_ENCODING, ClaimCheckError, ClaimCheckPayloadCodec, codecOptionsFromEnv, CodecConfigError, FileBlobStore, Team, type PayloadCodecOptions } from '../../src';
import { batonPayloadCodecs } from '../../src/payloads/codec';
import { scriptedAgent } from '../helpers/agents';
import { useTemporalServer, withWorker } from '../helpers/temporal';

const server = useTemporalServer();

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'baton-claim-'));
const encoding = (p: { metadata?: Record<string, Uint8Array> | null }) => new TextDecoder().decode(p.metadata?.encoding ?? new Uint8Array());

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
    expect(codecOptionsFromEnv({ BATON_CLAIM_CHECK_DIR: '/blobs', BATON_CLAIM_CHECK_MIN_BYTES: '2048' })).toEqual({ claimCheck: { dir: '/blobs', minBytes: 2048 } });
    expect(() => codecOptionsFromEnv({ BATON_CLAIM_CHECK_MIN_BYTES: '2048' })).toThrow(CodecConfigError);
    expect(() => codecOptionsFromEnv({ BATON_CLAIM_CHECK_DIR: '/blobs', BATON_CLAIM_CHECK_MIN_BYTES: 'lots' })).toThrow(CodecConfigError);
    const codecs = batonPayloadCodecs({ compress: true, claimCheck: { dir: '/blobs' } });
    expect(codecs.at(-1)).toBeInstanceOf(ClaimCheckPayloadCodec);
  });

  it('keeps a conversation’s model inputs out of history; the history and audit read them back', async () => {
    const codec: PayloadCodecOptions = { claimCheck: { dir: tempDir(), minBytes: 512 } };
    const long = (n: number) => `message ${n}: ${'a long description of the problem. '.repeat(20)}`;
    const team = new Team([scriptedAgent('solo', [{ text: 'one' }, { text: 'two' }, { text: 'three' }])]);
    await withWorker(
      server.env,
      team,
      async (_plain, queue) => {
        const baton = new Baton({ client: new Client({ connection: server.env.connection, dataConverter: batonDataConverter(codec) }), taskQueue: queue });
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
        expect(payloads.filter((p) => encoding(p) !== CLAIM_CHECK_ENCODING).every((p) => (p.data?.length ?? 0) < 512)).toBe(true);
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
