/** baton connects the way Temporal's tools do: temporal.toml profiles and TEMPORAL_* variables. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectBaton, createWorker, Team, TemporalConnectionError } from '../../src';
import { temporal } from '@temporalio/proto';
import { approveHandoffSignal } from '../../src/workflow';
import { temporalConfig } from '../../src/client';
import { scriptedAgent } from '../helpers/agents';
import { taskQueue, useTemporalServer } from '../helpers/temporal';

const server = useTemporalServer();
const team = () => new Team([scriptedAgent('a', [{ text: 'connected' }])]);

describe('connections from the environment', () => {
  it('reads address and namespace from a temporal.toml profile', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-envconfig-'));
    const file = path.join(dir, 'temporal.toml');
    fs.writeFileSync(file, `[profile.staging]\naddress = "${server.env.address}"\nnamespace = "default"\n`);
    expect(temporalConfig({ profile: 'staging', configFile: file })).toMatchObject({
      connectionOptions: { address: server.env.address },
      namespace: 'default',
    });
    const queue = taskQueue();
    const worker = await createWorker({
      team: team(),
      taskQueue: queue,
      temporal: { profile: 'staging', configFile: file },
    });
    const baton = await connectBaton({ profile: 'staging', configFile: file, taskQueue: queue });
    const result = await worker.runUntil(baton.run('a', 'hi'));
    expect(result.output).toBe('connected');
  });

  it('takes TEMPORAL_ADDRESS and TEMPORAL_NAMESPACE like the temporal CLI, and refuses a namespace that does not exist', async () => {
    const saved = { address: process.env.TEMPORAL_ADDRESS, namespace: process.env.TEMPORAL_NAMESPACE };
    process.env.TEMPORAL_ADDRESS = server.env.address;
    process.env.TEMPORAL_NAMESPACE = 'default';
    try {
      expect(temporalConfig()).toMatchObject({
        connectionOptions: { address: server.env.address },
        namespace: 'default',
      });
      const queue = taskQueue();
      const worker = await createWorker({ team: team(), taskQueue: queue });
      const result = await worker.runUntil((await connectBaton({ taskQueue: queue })).run('a', 'hi'));
      expect(result.output).toBe('connected');
      process.env.TEMPORAL_NAMESPACE = 'no-such-namespace';
      await expect(createWorker({ team: team(), taskQueue: queue })).rejects.toThrow(/no-such-namespace/);
    } finally {
      for (const [key, value] of Object.entries({
        TEMPORAL_ADDRESS: saved.address,
        TEMPORAL_NAMESPACE: saved.namespace,
      })) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });
});

describe('a server that is not there', () => {
  it('gets from createWorker and connectBaton what the baton command says: where, why, and what to do', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-envconfig-'));
    const file = path.join(dir, 'temporal.toml');
    // Port 1: nothing listens there.
    fs.writeFileSync(file, '[profile.nowhere]\naddress = "127.0.0.1:1"\n');
    const saved = process.env.TEMPORAL_ADDRESS;
    delete process.env.TEMPORAL_ADDRESS;
    try {
      const fromWorker = await createWorker({ team: team(), temporal: { profile: 'nowhere', configFile: file } }).catch(
        (e: unknown) => e,
      );
      const fromClient = await connectBaton({ profile: 'nowhere', configFile: file }).catch((e: unknown) => e);
      for (const err of [fromWorker, fromClient]) {
        expect(err).toBeInstanceOf(TemporalConnectionError);
        expect(err).toMatchObject({ address: '127.0.0.1:1' });
        expect((err as Error).message).toMatch(
          /^cannot reach a Temporal server at 127\.0\.0\.1:1 \(.+\)\. Start one with `npx baton dev`/,
        );
        expect((err as Error).message).not.toMatch(/tonic|TransportError/);
      }
      expect((fromWorker as TemporalConnectionError).reason).toBe('Connection refused');
    } finally {
      if (saved !== undefined) process.env.TEMPORAL_ADDRESS = saved;
    }
  });
});

describe('a connection made by connectBaton', () => {
  it('receives a page of history over 4 MB whole (large refused decisions), so the audit reads it at once', async () => {
    const saved = process.env.TEMPORAL_ADDRESS;
    process.env.TEMPORAL_ADDRESS = server.env.address;
    const baton = await connectBaton({ taskQueue: taskQueue() }).finally(() => {
      if (saved === undefined) delete process.env.TEMPORAL_ADDRESS;
      else process.env.TEMPORAL_ADDRESS = saved;
    });
    // A chain no worker has picked up yet keeps what arrives in its first run: three decisions of 1.5 MB each.
    const run = await baton.start('a', 'go');
    for (let i = 0; i < 3; i++)
      await run.handle.signal(approveHandoffSignal, {
        handoffId: 'h',
        approver: 'alice',
        comment: 'x'.repeat(1.5 * 2 ** 20),
      });
    // Every page as the server cuts it, read with connectBaton's connection: one over gRPC's 4 MB default.
    const sizes: number[] = [];
    let nextPageToken: Uint8Array | undefined;
    do {
      const page = await baton.client.workflowService.getWorkflowExecutionHistory({
        namespace: 'default',
        execution: { workflowId: run.workflowId },
        nextPageToken,
      });
      sizes.push(temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryResponse.encode(page).finish().length);
      nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
    } while (nextPageToken);
    expect(Math.max(...sizes)).toBeGreaterThan(4 * 2 ** 20);
    const audit = await baton.audit(run.workflowId);
    expect(audit.events.filter((e) => e.kind === 'signal')).toHaveLength(3);
    await run.handle.terminate('read');
  });
});
