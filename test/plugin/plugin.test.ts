/**
 * BatonPlugin in a service's own Worker and Client on a real server: the service's workflow and
 * activity run beside baton's chains in one worker (the service's workflow even starts a chain as
 * its child), baton's encryption covers the service's payloads too, metrics count the handoffs, a
 * replay worker replays both; an activity named like one of baton's, and codecs of the service's
 * own beside baton's, are refused with what to do.
 */
import path from 'node:path';
import { Client } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, Worker } from '@temporalio/worker';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { Baton, BatonPlugin, Team } from '../../src';
import { GzipPayloadCodec, newEncryptionKey, parseEncryptionKeys } from '../../src/payloads';
import { UserError } from '../../src/workflow';
import { ENCRYPTED_ENCODING } from '../../src/payloads/encryption';
import { scriptedAgent } from '../helpers/agents';
import { taskQueue, useTemporalServer } from '../helpers/temporal';

const server = useTemporalServer();

const team = () =>
  new Team([
    scriptedAgent('triage', [{ handoff: { to: 'refunds', message: 'customer asks about an order' } }], {
      handoffs: ['refunds'],
    }),
    scriptedAgent('refunds', [{ text: 'Your order is on its way.' }]),
  ]);

describe('BatonPlugin', () => {
  it("runs a service's own workflows and baton's chains in one worker, with baton's codecs and metrics on both", async () => {
    const queue = taskQueue();
    const registry = new Registry();
    const plugin = new BatonPlugin({
      team: team(),
      codec: { compress: true, encryptionKeys: parseEncryptionKeys(`k1:${newEncryptionKey()}`) },
      metrics: { registry },
    });
    // The service bundles its workflows itself, with the plugin: baton's are added, and its failure converter for the encryption.
    const workflowBundle = await bundleWorkflowCode({
      workflowsPath: path.join(__dirname, 'workflows.ts'),
      plugins: [plugin],
      logger: new DefaultLogger('WARN'),
    });
    const worker = await Worker.create({
      connection: server.env.nativeConnection,
      taskQueue: queue,
      workflowBundle,
      activities: { lookupOrder: async (orderId: string) => `shipped (order ${orderId})` },
      plugins: [plugin],
    });
    const client = new Client({ connection: server.env.connection, plugins: [plugin] });
    const baton = new Baton({ client, taskQueue: queue });
    const [chain, own] = await worker.runUntil(async () => {
      const chain = await baton.run('triage', 'Where is my order?');
      const own = await client.workflow.execute('orderStatus', {
        taskQueue: queue,
        workflowId: `order-${queue}`,
        args: ['42'],
      });
      return [chain, own] as const;
    });
    expect(chain.output).toBe('Your order is on its way.');
    expect(chain.handoffChain.map((h) => `${h.from}>${h.to}`)).toEqual(['triage>refunds']);
    expect(own).toBe('shipped (order 42): Your order is on its way.');
    expect(
      (await registry.getSingleMetric('baton_handoffs_total')?.get())?.values.reduce((n, v) => n + v.value, 0),
    ).toBe(2);

    // The service's own workflow input went through baton's encryption; a client without the plugin sees only ciphertext.
    const plain = new Client({ connection: server.env.connection });
    const ownId = `order-${queue}`;
    const history = await plain.workflow.getHandle(ownId).fetchHistory();
    const started = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    expect(new TextDecoder().decode(started?.metadata?.encoding ?? new Uint8Array())).toBe(ENCRYPTED_ENCODING);

    // A replay worker with the plugin replays both kinds of workflow from history.
    const histories = [
      { workflowId: ownId, history: await client.workflow.getHandle(ownId).fetchHistory() },
      { workflowId: `${ownId}/answer`, history: await client.workflow.getHandle(`${ownId}/answer`).fetchHistory() },
    ];
    for await (const result of Worker.runReplayHistories({ workflowBundle, plugins: [plugin] }, histories))
      expect(result.error).toBeUndefined();
  }, 180_000);

  it("refuses an activity named like one of baton's, and codecs of the service's own beside baton's, saying what to do", async () => {
    const create = (extra: Partial<Parameters<typeof Worker.create>[0]>, plugin: BatonPlugin) =>
      Worker.create({
        connection: server.env.nativeConnection,
        taskQueue: taskQueue(),
        workflowsPath: path.join(__dirname, 'workflows.ts'),
        plugins: [plugin],
        ...extra,
      }).catch((e: unknown) => e);
    const clash = await create(
      { activities: { callModel: async () => 'mine' } },
      new BatonPlugin({ team: team(), codec: {} }),
    );
    expect(clash).toBeInstanceOf(UserError);
    expect((clash as Error).message).toBe(
      `the worker's activities "callModel" have the names of baton's activities; rename yours (a worker runs one activity per name)`,
    );

    const codecs = await create(
      { dataConverter: { payloadCodecs: [new GzipPayloadCodec()] } },
      new BatonPlugin({ team: team(), codec: { compress: true } }),
    );
    expect(codecs).toBeInstanceOf(UserError);
    expect((codecs as Error).message).toMatch(
      /already has 1 payload codec\(s\), and baton's codec options .* would replace them: keep yours with BatonPlugin\(\{ codec: false \}\)/,
    );
  }, 60_000);
});
