/**
 * The chains the archive tests archive and the workers that archive them: the frontdesk team (a
 * lookup whose card is secret, a handoff, a handoff that waits for alice), its chains closed every
 * way a chain closes, an archive worker that hashes the email it meets, and the archiver's status.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { z } from 'zod';
import { defineTool, Team } from '../../../src';
import { archiverStatusQuery, type ArchiverStatus } from '../../../src/common/archive';
import type { ArchiveStore } from '../../../src/audit/archive/store';
import type { DevServer } from '../../../src/devserver/server';
import { archiverWorkflowId, createArchiveWorker, type ArchiveWorkerOptions } from '../../../src/worker/archive';
import { scriptedAgent as agent } from '../../helpers/agents';
import { keys } from '../../helpers/signing';
import { withWorker } from '../../helpers/temporal';
import { waitFor } from '../../helpers/wait';

/** The card number the lookup is given: the team declares it secret, so no archive holds it. */
export const CARD = '4111111111111111';
/** The email the lookup is given: the archive's personal data, hashed wherever it is kept. */
export const EMAIL = 'dana@example.com';
const HASH_KEY = 'archive-hash-key-0123456789';

const lookup = defineTool({
  name: 'lookup',
  description: 'Look a customer up',
  parameters: z.object({ email: z.string(), card: z.string() }),
  sensitive: { arguments: ['card'] },
  execute: ({ email }) => JSON.stringify({ email, plan: 'gold' }),
});

/** desk looks dana up and hands off to closer, who answers `done`; waiter hands off to gated, which waits for alice. */
export const team = () =>
  new Team(
    [
      agent(
        'desk',
        [
          { toolCalls: [{ name: 'lookup', arguments: { email: EMAIL, card: CARD } }] },
          { handoff: { to: 'closer', message: 'gold customer' } },
        ],
        { tools: [lookup], handoffs: ['closer'] },
      ),
      agent('closer', [{ text: 'done' }]),
      agent('waiter', [{ handoff: { to: 'gated', message: 'needs a yes' } }], { handoffs: ['gated'] }),
      agent('gated', [{ text: 'never' }], { approval: { approvers: ['alice'] } }),
    ],
    { name: 'frontdesk' },
  );

/**
 * Runs chains of `team()` on `chains` until each has closed a different way (completed, failed,
 * cancelled, terminated, timed out) and a conversation has ended; resolves to their ids by how they closed.
 */
export async function closeEveryWay(env: DevServer, chains: string) {
  return withWorker(
    env,
    team(),
    async (baton) => {
      const completed = await baton.start('desk', 'a customer asks', { context: { tenant: 'acme' } });
      await completed.result();
      const failed = await baton.start('desk', 'again', { maxHandoffs: 0 });
      await expect(failed.result()).rejects.toThrow();
      const cancelled = await baton.start('waiter', 'cancel me');
      const terminated = await baton.start('waiter', 'terminate me');
      await waitFor(
        () => Promise.all([cancelled.pendingApprovals(), terminated.pendingApprovals()]),
        ([a, b]) => a.length === 1 && b.length === 1,
      );
      await cancelled.handle.cancel();
      await terminated.handle.terminate('stopped by the test');
      const timedOut = await env.client.workflow.start('handoffRun', {
        taskQueue: chains,
        workflowId: `timeout-${randomUUID()}`,
        args: [{ agent: 'waiter', input: 'too slow' }],
        workflowExecutionTimeout: '3 seconds',
      });
      const chat = baton.conversation('closer');
      await chat.send('hello');
      await chat.end();
      await expect(timedOut.result()).rejects.toThrow();
      return {
        completed: completed.workflowId,
        failed: failed.workflowId,
        cancelled: cancelled.workflowId,
        terminated: terminated.workflowId,
        timedOut: timedOut.workflowId,
        conversation: chat.id,
      };
    },
    { taskQueue: chains },
  );
}

/**
 * An archive worker on `env` for the chains on `chainsOn`, polling `queue` and writing to `store`:
 * it signs with the audit key and hashes the email; `extra` overrides its options.
 */
export function archiveWorker(
  env: DevServer,
  store: ArchiveStore | string,
  queue: string,
  chainsOn: string,
  extra: Partial<ArchiveWorkerOptions> = {},
) {
  return createArchiveWorker({
    archive: store,
    connection: env.nativeConnection,
    client: env.client,
    taskQueue: queue,
    signer: keys.audit.signer,
    personalData: { fields: ['email'], mode: 'hash', hashKey: HASH_KEY },
    archiver: { chainsOn, settleMs: 300, pollMs: 300, heartbeatTimeoutMs: 2_000 },
    ...extra,
  });
}

/** The status of the archiver that polls `queue`. */
export const status = (env: DevServer, queue: string): Promise<ArchiverStatus> =>
  env.client.workflow.getHandle(archiverWorkflowId(queue)).query(archiverStatusQuery);
