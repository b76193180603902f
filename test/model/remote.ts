/**
 * The other team of the harness's system: `ledger` (./remoteTeam.ts), served over A2A by baton's
 * service on a port of its own (`MODEL_REMOTE_URL` for the workers' team), with a worker of that
 * team, both in the harness's process. Its service can be taken down (its connections dropped, as a
 * crash drops them) and brought back on its port; see ./operations/remote.ts.
 */
import type { Client } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { Baton } from '../../src';
import { serveBaton, type BatonService } from '../../src/server';
import { createWorker } from '../../src/worker';
import { team as remoteTeam } from './remoteTeam';
import { REMOTE_TOKEN } from './team';
import { hostWorker, stopHostedWorker, type HostedWorker } from './hostedWorker';

/** The remote team's task queue. */
export const REMOTE_QUEUE = 'model-remote';

/** The remote team: its worker, and its service, taken down and brought back on its port. */
export class ModelRemote {
  private service?: BatonService;
  private worker?: HostedWorker;
  /** Times the service was taken down. */
  outages = 0;

  constructor(
    private readonly address: string,
    private readonly client: Client,
    readonly url: string,
  ) {}

  /** Start the worker (once) and the service. */
  async start(): Promise<void> {
    if (!this.worker) {
      const connection = await NativeConnection.connect({ address: this.address });
      const worker = await createWorker({ team: remoteTeam, connection, taskQueue: REMOTE_QUEUE });
      this.worker = hostWorker(worker, connection);
    }
    this.service = await serveBaton({
      baton: new Baton({ client: this.client, taskQueue: REMOTE_QUEUE }),
      auth: { tokens: [{ token: REMOTE_TOKEN, identity: 'model', roles: ['starter'] }] },
      port: Number(new URL(this.url).port),
      host: '127.0.0.1',
      agents: remoteTeam.ids,
      a2a: { team: remoteTeam },
      metrics: false,
      log: () => undefined,
    });
  }

  /** Take the service down: it stops listening and drops every connection. */
  async down(): Promise<void> {
    const service = this.service;
    this.service = undefined;
    if (!service) return;
    this.outages++;
    await service.close();
  }

  async close(): Promise<void> {
    await this.down();
    const w = this.worker;
    this.worker = undefined;
    await stopHostedWorker(w);
  }
}
