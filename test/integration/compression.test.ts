import { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { Baton, defineAgent, scripted, Team } from '../../src';
import { batonDataConverter } from '../../src/payloads';
import { taskQueue, useTemporalServer } from '../helpers/temporal';
import { createWorker } from '../../src/worker';

const server = useTemporalServer();

describe('compressed payloads', () => {
  it('gzips large payloads in history, and the audit still reads them', async () => {
    const long = 'The customer explained the problem at length. '.repeat(100);
    const team = new Team([
      defineAgent({ id: 'a', instructions: long, model: scripted([{ handoff: { to: 'b', message: long } }]) }),
      defineAgent({ id: 'b', instructions: 'B', model: scripted([{ text: 'short answer' }]) }),
    ]);
    const queue = taskQueue();
    const client = new Client({
      connection: server.env.connection,
      dataConverter: batonDataConverter({ compress: true }),
    });
    const worker = await createWorker({
      team,
      connection: server.env.nativeConnection,
      taskQueue: queue,
      compress: true,
    });
    const baton = new Baton({ client, taskQueue: queue });
    const { result, history, audit } = await worker.runUntil(async () => {
      const run = await baton.start('a', long);
      return {
        result: await run.result(),
        history: await run.handle.fetchHistory(),
        audit: await baton.audit(run.workflowId),
      };
    });
    expect(result.handoffChain[0]?.message).toBe(long);
    const scheduled = (history.events ?? []).find(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel',
    );
    const payload = scheduled?.activityTaskScheduledEventAttributes?.input?.payloads?.[0];
    expect(new TextDecoder().decode(payload?.metadata?.encoding ?? new Uint8Array())).toBe('binary/gzip');
    expect(payload?.data?.length).toBeLessThan(long.length / 5);
    expect(audit.input?.input).toBe(long);
    expect(audit.handoffs[0]?.message).toBe(long);
    expect(audit.result?.output).toBe('short answer');
  });
});
