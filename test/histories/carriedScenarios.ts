/**
 * Recorded scenarios of states carried into a next run after a tool call was approved: a chain that
 * continues as new, a conversation that continues as new between turns (a hand-back among them),
 * and a chain migrated onto the current team (`--on-current-team`) after its approved tool ran.
 * Each carried state holds what approvals of tool calls leave in it (`approvals.toolCalls`).
 */
import type { Worker } from '@temporalio/worker';
import { z } from 'zod';
import { Baton, defineTool, handoff, Team, type BatonRun } from '../../src';
import type { ConversationReply } from '../../src/workflow';
import type { DevServer } from '../../src/devserver/server';
import { createWorker } from '../../src/worker';
import { scriptedAgent as agent } from '../helpers/agents';
import { nextApproval } from './auditScenarios';
import type { Scenario } from './scenarios';

/** Every payout made, with its idempotency key: an approved call runs once, whatever runs it goes through. */
export const payouts: { key: string; paid: string }[] = [];

const payout = defineTool({
  name: 'payout',
  description: 'Pay money out to someone',
  parameters: z.object({ amount: z.number().positive(), to: z.string() }),
  needsApproval: true,
  execute: ({ amount, to }, ctx) => {
    payouts.push({ key: ctx.idempotencyKey, paid: `${amount} to ${to}` });
    return `paid ${amount} to ${to}`;
  },
});

const lookup = (name: string) =>
  defineTool({
    name,
    description: 'Look an order up',
    parameters: z.object({ order: z.string() }),
    execute: ({ order }) => `order ${order}: shipped`,
  });

/** `run`'s first waiting approval, approved by alice. */
async function approveFirst(baton: Baton, run: BatonRun): Promise<void> {
  const waiting = await nextApproval(run);
  await baton.approve(run.workflowId, waiting.handoffId, { approver: 'alice' });
}

/** Pays bob after alice approves, looks two orders up and hands to `b`, continuing as new from the approval on. */
export const continueAfterToolApprovalScenario: Scenario = {
  name: 'continue-after-tool-approval',
  team: () =>
    new Team([
      agent(
        'a',
        [
          { toolCalls: [{ name: 'payout', arguments: { amount: 5, to: 'bob' } }] },
          { toolCalls: [{ name: 'lookup', arguments: { order: '7' } }] },
          { toolCalls: [{ name: 'lookup', arguments: { order: '8' } }] },
          { handoff: { to: 'b', message: 'paid and looked up' } },
        ],
        { tools: [payout, lookup('lookup')] },
      ),
      agent('b', [{ text: 'bob was paid 5; orders 7 and 8 shipped' }]),
    ]),
  drive: async (baton) => {
    const run = await baton.start('a', 'pay bob, then look orders 7 and 8 up', { continueAsNewAfterEvents: 20 });
    await approveFirst(baton, run);
    await run.result();
    return run.workflowId;
  },
};

/**
 * A conversation whose first turn pays bob after alice approves; it continues as new after it, then
 * hands the next message to refunds, which hands the conversation back (`returnTo: 'caller'`), and
 * continues as new again before the last message.
 */
export const conversationAfterToolApprovalScenario: Scenario = {
  name: 'conversation-after-tool-approval',
  team: () =>
    new Team([
      agent(
        'desk',
        [
          { toolCalls: [{ name: 'payout', arguments: { amount: 5, to: 'bob' } }] },
          { text: 'bob is paid' },
          { handoff: { to: 'refunds', message: 'refund order 9' } },
          { text: 'anything else?' },
        ],
        {
          tools: [payout],
          handoffs: [handoff('refunds', { returnTo: 'caller' })],
        },
      ),
      agent('refunds', [{ text: 'order 9 refunded' }]),
    ]),
  drive: async (baton) => {
    const chat = baton.conversation('desk', { options: { continueAsNewAfterEvents: 20 } });
    const paid = chat.send('pay bob 5', { idempotencyKey: 'pay' });
    for (;;) {
      const waiting = (await chat.status().catch(() => undefined))?.pendingApprovals[0];
      if (waiting) {
        await baton.approve(chat.id, waiting.handoffId, { approver: 'alice' });
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    await paid;
    const refunded: ConversationReply = await chat.send('and refund order 9', { idempotencyKey: 'refund' });
    if (refunded.handedBackTo !== 'desk')
      throw new Error(`expected a hand-back to desk, got ${JSON.stringify(refunded)}`);
    await chat.send('thanks', { idempotencyKey: 'thanks' });
    await chat.end();
    return chat.id;
  },
};

/** The migration scenario's team in two versions: v2 calls `lookup` `findOrder` (same parameters). */
export function migrationTeam(v: 'v1' | 'v2'): Team {
  return new Team(
    [
      agent(
        'refunds',
        [
          { toolCalls: [{ name: 'payout', arguments: { amount: 5, to: 'bob' } }] },
          { toolCalls: [{ name: 'lookup', arguments: { order: '7' } }] },
          { text: `bob was paid 5; order 7 shipped (${v})` },
        ],
        { tools: [payout, lookup(v === 'v1' ? 'lookup' : 'findOrder')] },
      ),
    ],
    { name: 'payouts', version: v },
  );
}

async function running(
  env: DevServer,
  v: 'v1' | 'v2',
  taskQueue: string,
): Promise<{ worker: Worker; done: Promise<void> }> {
  const worker = await createWorker({
    team: migrationTeam(v),
    connection: env.nativeConnection,
    taskQueue,
    worker: {
      workerDeploymentOptions: { useWorkerVersioning: false, version: { deploymentName: 'payouts', buildId: v } },
    },
  });
  return { worker, done: worker.run() };
}

/**
 * A chain on v1 waits for alice's approval of a payout; v1's worker goes and v2's comes; the payout
 * runs (v2 has it as it was), then the lookup is refused (v2 renamed it) until the chain fails with
 * `TeamMismatchError`, and `replay --on-current-team` moves it onto v2. Resolves to the workflow id.
 */
export async function migrateAfterToolApproval(env: DevServer, taskQueue: string): Promise<string> {
  const baton = new Baton({ client: env.client, taskQueue });
  const v1 = await running(env, 'v1', taskQueue);
  let v2: Awaited<ReturnType<typeof running>> | undefined;
  try {
    const run = await baton.start('refunds', 'pay bob, then look order 7 up', { teamMismatchTimeout: '2 seconds' });
    const waiting = await nextApproval(run);
    v1.worker.shutdown();
    await v1.done;
    v2 = await running(env, 'v2', taskQueue);
    await baton.approve(run.workflowId, waiting.handoffId, { approver: 'alice' });
    await run.result().then(
      () => Promise.reject(new Error('expected the chain to fail with TeamMismatchError')),
      () => undefined,
    );
    await baton.replay(run.workflowId, { onCurrentTeam: true });
    await baton.getRun(run.workflowId).result();
    return run.workflowId;
  } finally {
    if (v1.worker.getState() === 'RUNNING') v1.worker.shutdown();
    if (v2?.worker.getState() === 'RUNNING') v2.worker.shutdown();
    await Promise.all([v1.done, v2?.done]);
  }
}

export const migrateAfterToolApprovalScenario: Scenario = {
  name: 'migrate-after-tool-approval',
  team: () => migrationTeam('v2'),
  drive: (_baton, env) => migrateAfterToolApproval(env, 'record-migrate-after-tool-approval-v'),
};

export const carriedScenarios: Scenario[] = [
  continueAfterToolApprovalScenario,
  conversationAfterToolApprovalScenario,
  migrateAfterToolApprovalScenario,
];
