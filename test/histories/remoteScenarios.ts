/**
 * A recorded delegation to a remote agent: a second team, served over A2A by the service on a task
 * queue of its own, waits for alice's approval before it answers; the desk chain records the wait
 * and the answer.
 */
import { Baton } from '../../src/client/baton';
import { REMOTE_WAITS_MEMO } from '../../src/common/messages';
import type { DevServer } from '../../src/devserver/server';
import { serveBaton } from '../../src/server';
import { createWorker } from '../../src/worker';
import { deskTeam } from '../integration/remote/deskTeam';
import { team as remoteTeam } from '../integration/remote/remoteTeam';
import type { Scenario } from './scenarios';

/** The token the desk's worker calls the remote service with. */
const TOKEN = 'record-remote-token-1';

/** Where the remote team is served while the scenario records. */
const remote = { url: 'http://127.0.0.1:1', baton: undefined as Baton | undefined };

export const remoteDelegationScenario: Scenario = {
  name: 'remote-delegation',
  async prepare(env: DevServer) {
    const taskQueue = 'record-remote-delegation-remote';
    const worker = await createWorker({ team: remoteTeam, connection: env.nativeConnection, taskQueue });
    const running = worker.run();
    const baton = new Baton({ client: env.client, taskQueue });
    const service = await serveBaton({
      baton,
      auth: { tokens: [{ token: TOKEN, identity: 'desk', roles: ['starter'] }] },
      port: 0,
      host: '127.0.0.1',
      agents: remoteTeam.ids,
      metrics: false,
      a2a: { team: remoteTeam },
    });
    Object.assign(remote, { url: service.url, baton });
    return async () => {
      await service.close();
      worker.shutdown();
      await running;
    };
  },
  team: () => deskTeam(remote.url, TOKEN),
  drive: async (b) => {
    const run = await b.start('desk', 'My order 42 arrived broken.');
    // The remote chain waits for alice, and the desk chain records the wait; she approves there.
    const handle = b.client.workflow.getHandle(run.workflowId);
    while (((await handle.describe()).memo?.[REMOTE_WAITS_MEMO] as unknown[] | undefined)?.length !== 1)
      await new Promise((r) => setTimeout(r, 100));
    for (;;) {
      const waiting = await remote.baton!.pending().catch(() => []);
      const approval = waiting.find((p) => p.from === 'billing');
      if (approval) {
        await remote.baton!.approve(approval.workflowId, approval.approvalId, { approver: 'alice' });
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    await run.result();
    return run.workflowId;
  },
};
