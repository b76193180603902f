/**
 * baton's codecs against Temporal's payload limit as SDK 1.24 enforces it, on a dev server whose
 * namespace takes 100,000 bytes in one payload: an encrypted tool result at the limit goes through,
 * 200 bytes over it the call fails once (not retried, so the tool is not run again) unless
 * compression, the claim check or Temporal's external storage keeps it under; a conversation that
 * outgrows the limit fails the chain with a typed error rather than wedging it; and a chain that did wedge (its
 * workflow task over the limit, retried by the SDK) goes on when a worker with the claim check takes it.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Baton, defineAgent, defineTool, ModelCallFailedError, scripted, Team, ToolExecutionError } from '../../src';
import {
  batonDataConverter,
  batonPayloadCodecs,
  newEncryptionKey,
  parseEncryptionKeys,
  type PayloadCodecOptions,
} from '../../src/payloads';
import { createWorker } from '../../src/worker';
import { taskQueue, useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const LIMIT = 100_000;
const server = useTemporalServer({ dynamicConfig: [`limit.blobSize.error=${LIMIT}`, 'limit.blobSize.warn=90000'] });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-limits-'));
const RETRY = { maximumAttempts: 3, initialInterval: '100 ms' } as const;

/** An agent that calls `fetch` `calls` times, each returning `text(i)`, then answers "done"; `ran` counts executions. */
function reader(text: (i: number) => string, calls = 1) {
  const ran = { count: 0 };
  const fetch = defineTool({
    name: 'fetch',
    description: 'Fetch a document',
    parameters: z.object({ n: z.number() }),
    execute: ({ n }) => {
      ran.count++;
      return text(n);
    },
  });
  const steps = [
    ...Array.from({ length: calls }, (_, n) => ({ toolCalls: [{ name: 'fetch', arguments: { n } }] })),
    { text: 'done' },
  ];
  return {
    ran,
    team: new Team([defineAgent({ id: 'reader', instructions: 'Read.', tools: [fetch], model: scripted(steps) })]),
  };
}

const text = (size: number) => () => 'x'.repeat(size);
/** Text gzip cannot shrink. */
const noise = (size: number) => () => randomBytes(size).toString('base64').slice(0, size);

/** Run one chain on a worker with `codec`; its outcome and its history. */
async function chain(team: Team, codec: PayloadCodecOptions) {
  const queue = taskQueue();
  const client = new Client({ connection: server.env.connection, dataConverter: batonDataConverter(codec) });
  const worker = await createWorker({ team, connection: server.env.nativeConnection, taskQueue: queue, codec });
  const baton = new Baton({ client, taskQueue: queue });
  return worker.runUntil(async () => {
    const run = await baton.start('reader', 'go', { retry: RETRY });
    const outcome = await run.result().then(
      (r) => r.output,
      (e: unknown) => e,
    );
    const events = (await run.handle.fetchHistory()).events ?? [];
    return { outcome, events, audit: await baton.audit(run.workflowId), run };
  });
}

/** The protobuf size of a tool's result payload as `codec` encodes it (what Temporal measures). */
async function encodedSize(content: string, codec: PayloadCodecOptions): Promise<number> {
  const [payload] = await batonPayloadCodecs(codec).reduce(
    async (p, c) => c.encode(await p),
    Promise.resolve([defaultPayloadConverter.toPayload({ ok: true, content })!]),
  );
  return temporal.api.common.v1.Payload.encode(payload!).finish().length;
}

const encryption = { encryptionKeys: parseEncryptionKeys(`k1:${newEncryptionKey()}`) };

describe("baton's codecs at Temporal's payload limit", () => {
  it('take a result at the limit, encrypted too; over it, fail the call once unless compression, the claim check or external storage keep it under', async () => {
    const overhead = (await encodedSize('x'.repeat(LIMIT), encryption)) - LIMIT;
    const sized = (bytes: number) => reader(text(bytes - overhead));
    expect(await encodedSize('x'.repeat(LIMIT - 200 - overhead), encryption)).toBe(LIMIT - 200);

    // At the limit (200 bytes under it, encrypted): the call completes; the model call that would carry it is over, and fails the chain at once.
    const at = await chain(sized(LIMIT - 200).team, encryption);
    expect(at.events.filter((e) => e.activityTaskCompletedEventAttributes)).toHaveLength(3); // the snapshot, the model's call, the tool's
    expect(at.outcome).toBeInstanceOf(ModelCallFailedError);
    expect(at.events.filter((e) => e.workflowTaskFailedEventAttributes)).toEqual([]);

    // 200 bytes over it: the call fails on its first attempt (the tool is not run again), and the chain with a typed error.
    const over = sized(LIMIT + 200);
    const failed = await chain(over.team, encryption);
    expect(failed.outcome).toBeInstanceOf(ToolExecutionError);
    expect((failed.outcome as ToolExecutionError).reason).toMatch(/exceeded the error limit/);
    expect(over.ran.count).toBe(1);

    // Compression keeps compressible text under; the claim check and external storage keep anything out of history.
    expect((await chain(reader(text(150_000)).team, { compress: true })).outcome).toBe('done');
    expect((await chain(reader(noise(150_000)).team, { claimCheck: { dir } })).outcome).toBe('done');
    const stored = await chain(reader(noise(150_000)).team, {
      claimCheck: { dir, via: 'external-storage' },
      ...encryption,
    });
    expect(stored.outcome).toBe('done');
    // History holds Temporal's own reference; the audit reads the result back through it.
    const completed = stored.events.find(
      (e) =>
        e.activityTaskCompletedEventAttributes &&
        e.activityTaskCompletedEventAttributes.result?.payloads?.[0]?.externalPayloads?.length,
    );
    const reference = completed?.activityTaskCompletedEventAttributes?.result?.payloads?.[0];
    expect(new TextDecoder().decode(reference?.metadata?.messageType ?? new Uint8Array())).toBe(
      'temporal.api.sdk.v1.ExternalStorageReference',
    );
    expect(stored.audit.events.find((e) => e.kind === 'tool_call')).toMatchObject({ tool: 'fetch' });
    expect(JSON.stringify(stored.audit).length).toBeGreaterThan(150_000);
  }, 180_000);

  it('fail a chain whose conversation outgrows the limit with a typed error, and let a chain that wedged go on with the claim check', async () => {
    // Each result fits; the conversation the third model call would carry does not.
    const growing = await chain(reader(text(40_000), 3).team, {});
    expect(growing.outcome).toBeInstanceOf(ModelCallFailedError);
    expect((growing.outcome as ModelCallFailedError).reason).toMatch(
      /^the conversation is at least 120\d{3} bytes, over the 98976 bytes Temporal takes in one payload .*claim check/,
    );
    expect(growing.events.filter((e) => e.workflowTaskFailedEventAttributes)).toEqual([]);

    // With compression no limit is recorded (it may shrink), and noise it cannot shrink wedges the chain: its
    // workflow task fails as over the limit and is tried again, and nothing is lost.
    const { team } = reader(noise(60_000), 3);
    const queue = taskQueue();
    const compressed = { compress: true };
    const baton = new Baton({
      client: new Client({ connection: server.env.connection, dataConverter: batonDataConverter(compressed) }),
      taskQueue: queue,
    });
    const first = await createWorker({
      team,
      connection: server.env.nativeConnection,
      taskQueue: queue,
      codec: compressed,
    });
    const run = await first.runUntil(async () => {
      const run = await baton.start('reader', 'go', { retry: RETRY });
      await waitFor(
        async () => (await run.handle.fetchHistory()).events ?? [],
        (events) =>
          events.some(
            (e) =>
              e.workflowTaskFailedEventAttributes?.cause ===
              temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_PAYLOADS_TOO_LARGE,
          ),
      );
      return run;
    });
    // A worker with the claim check takes the chain over, and it completes.
    const rescue = { compress: true, claimCheck: { dir } };
    const second = await createWorker({
      team,
      connection: server.env.nativeConnection,
      taskQueue: queue,
      codec: rescue,
    });
    expect(await second.runUntil(run.result()).then((r) => r.output)).toBe('done');
  }, 180_000);
});
