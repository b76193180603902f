/**
 * A conversation's turn stranded by a deploy: a refund approved in the turn, then v1's worker gone
 * and v2's (which renamed the refund tool) polling, so the refund's step is refused. Its caller is
 * told at once (`TurnStrandedError`); the turn waits, and a migration moves it onto v2, where the
 * approved refund runs under its new name without asking again. And a migration refused: v2
 * registered on the queue and its worker gone, no worker takes the conversation onto v2 within
 * `teamMismatchTimeout`, and its next turn runs on v1; or, its turn stranded, the turn goes on on v1.
 */
import type { Worker } from '@temporalio/worker';
import { z } from 'zod';
import { Baton, defineTool, Team, type Conversation, type RunOptions } from '../../src';
import { TurnStrandedError } from '../../src/workflow';
import type { DevServer } from '../../src/devserver/server';
import { TEAM_REGISTRY_MEMO, teamRegistryId, type TeamRegistryState } from '../../src/common/teamRegistry';
import { createWorker } from '../../src/worker';
import { scriptedAgent as agent } from '../helpers/agents';
import type { Scenario } from './scenarios';

/** Every refund made: by which version, with its idempotency key. */
export const refunds: { key: string; version: string }[] = [];

/** The desk in two versions: v2 calls `issueRefund` `refundOrder` (same parameters). */
export function deskTeam(v: 'v1' | 'v2'): Team {
  const refund = defineTool({
    name: v === 'v1' ? 'issueRefund' : 'refundOrder',
    description: 'Refund an order',
    parameters: z.object({ order: z.string() }),
    needsApproval: true,
    execute: ({ order }, ctx) => {
      refunds.push({ key: ctx.idempotencyKey, version: v });
      return `refunded ${order}`;
    },
  });
  const call = { name: refund.name, arguments: { order: 'A1' } };
  return new Team(
    [
      agent(
        'desk',
        [{ text: `hello (${v})` }, { toolCalls: [call] }, { text: `A1 refunded (${v})` }, { text: `bye (${v})` }],
        { tools: [refund] },
      ),
    ],
    { name: 'desk', version: v },
  );
}

/** A worker of `v` on `taskQueue`, told apart from the other version's by its build id. */
export async function deskWorker(
  env: DevServer,
  v: 'v1' | 'v2',
  taskQueue: string,
): Promise<{ worker: Worker; done: Promise<void>; stop(): Promise<void> }> {
  const worker = await createWorker({
    team: deskTeam(v),
    connection: env.nativeConnection,
    taskQueue,
    worker: {
      workerDeploymentOptions: { useWorkerVersioning: false, version: { deploymentName: 'desk', buildId: v } },
    },
  });
  const done = worker.run();
  return {
    worker,
    done,
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}

/** A conversation whose second turn (a refund alice approved) is stranded by a deploy; the refund's message and its caller's error. */
export async function strandedTurn(env: DevServer, taskQueue: string, options: RunOptions = {}) {
  const { baton, chat, refund, waiting, v2 } = await refundAfterDeploy(env, taskQueue, options);
  await baton.approve(chat.id, waiting.pendingApprovals[0]!.handoffId, { approver: 'alice' });
  const told = await refund;
  if (!(told instanceof TurnStrandedError)) {
    await v2.stop();
    throw new Error(`expected TurnStrandedError, got ${String(told)}`);
  }
  return { baton, chat, told, v2 };
}

/** A conversation's refund waiting for alice on v1, then v1's worker gone and v2's polling; the refund's reply or error to come. */
async function refundAfterDeploy(env: DevServer, taskQueue: string, options: RunOptions = {}) {
  const baton = new Baton({ client: env.client, taskQueue });
  const v1 = await deskWorker(env, 'v1', taskQueue);
  const chat = baton.conversation('desk', { options });
  await chat.send('hello', { idempotencyKey: 'hello' });
  const refund = chat.send('refund order A1', { idempotencyKey: 'refund' }).then(
    (reply) => reply,
    (err: unknown) => err,
  );
  const waiting = await untilStatus(chat, (v) => v.pendingApprovals.length > 0);
  await v1.stop();
  return { baton, chat, refund, waiting, v2: await deskWorker(env, 'v2', taskQueue) };
}

/** The conversation's view once `ok` holds for it. */
export async function untilStatus(
  chat: Conversation,
  ok: (view: Awaited<ReturnType<Conversation['status']>>) => boolean,
  timeoutMs = 60_000,
) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const view = await chat.status().catch(() => undefined);
    if (view && ok(view)) return view;
    if (Date.now() > until)
      throw new Error(`conversation ${chat.id}: no such status within ${timeoutMs} ms (last: ${JSON.stringify(view)})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const strandedMigratedScenario: Scenario = {
  name: 'conversation-stranded-migrated',
  team: () => deskTeam('v2'),
  drive: async (_baton, env) => {
    const { baton, chat, v2 } = await strandedTurn(env, 'record-conversation-stranded-migrated-v', {
      teamMismatchTimeout: '2 seconds',
    });
    try {
      await baton.migrateConversation(chat.id);
      await chat.send('refund order A1', { idempotencyKey: 'refund' });
      await chat.send('thanks', { idempotencyKey: 'thanks' });
      await chat.end();
      return chat.id;
    } finally {
      await v2.stop();
    }
  },
};

/** Waits until the team registry of `taskQueue` lists `teamId` (a worker of it registered it). */
async function registered(env: DevServer, taskQueue: string, teamId: string, timeoutMs = 30_000): Promise<void> {
  const registry = env.client.workflow.getHandle(teamRegistryId(taskQueue));
  for (const until = Date.now() + timeoutMs; ; await new Promise((r) => setTimeout(r, 100))) {
    const memo = (await registry.describe().catch(() => undefined))?.memo?.[TEAM_REGISTRY_MEMO] as
      TeamRegistryState | undefined;
    if (memo?.teams.some((t) => t.id === teamId)) return;
    if (Date.now() > until) throw new Error(`${teamId} was not registered on ${taskQueue} within ${timeoutMs} ms`);
  }
}

export const migrationRefusedScenario: Scenario = {
  name: 'conversation-migration-refused',
  team: () => deskTeam('v1'),
  drive: async (_baton, env) => {
    const taskQueue = 'record-conversation-migration-refused-v';
    const baton = new Baton({ client: env.client, taskQueue });
    const v1 = await deskWorker(env, 'v1', taskQueue);
    try {
      const chat = baton.conversation('desk', { options: { teamMismatchTimeout: '2 seconds' } });
      await chat.send('hello', { idempotencyKey: 'hello' });
      await (await deskWorker(env, 'v2', taskQueue)).stop();
      await registered(env, taskQueue, 'desk@v2');
      // A worker trusts what it read of the registry for a second (activities/staleTeam.ts).
      await new Promise((r) => setTimeout(r, 1500));
      const refused = await baton.migrateConversation(chat.id).then(
        () => undefined,
        (err: unknown) => err,
      );
      if ((refused as Error | undefined)?.name !== 'TeamMismatchError')
        throw new Error(`expected the migration refused with TeamMismatchError, got ${String(refused)}`);
      const refund = chat.send('refund order A1', { idempotencyKey: 'refund' });
      const waiting = await untilStatus(chat, (v) => v.pendingApprovals.length > 0);
      await baton.approve(chat.id, waiting.pendingApprovals[0]!.handoffId, { approver: 'alice' });
      const reply = await refund;
      if (reply.output !== 'A1 refunded (v1)')
        throw new Error(`expected the refund answered on v1, got ${JSON.stringify(reply)}`);
      await chat.send('thanks', { idempotencyKey: 'thanks' });
      await chat.end();
      return chat.id;
    } finally {
      await v1.stop();
    }
  },
};

/**
 * A refund's step refused once while a deploy rolls: v1's worker gone when alice approves, v2's
 * refuses the step, and v1's is back for the next try. The caller gets the reply; nothing is stranded.
 */
export async function refusedWhileRolling(env: DevServer, taskQueue: string) {
  const { baton, chat, refund, waiting, v2 } = await refundAfterDeploy(env, taskQueue);
  // v1 again, ready to poll: it takes over from v2 right after v2 has refused the refund's step.
  const back = await createWorker({ team: deskTeam('v1'), connection: env.nativeConnection, taskQueue });
  await baton.approve(chat.id, waiting.pendingApprovals[0]!.handoffId, { approver: 'alice' });
  const handle = env.client.workflow.getHandle(chat.id);
  for (let refused = false; !refused; await new Promise((r) => setTimeout(r, 20)))
    refused = ((await handle.fetchHistory()).events ?? []).some((e) => e.activityTaskFailedEventAttributes);
  const reply = await back.runUntil(async () => {
    await v2.stop();
    const answered = await refund;
    await chat.end();
    return answered;
  });
  return { chat, reply };
}

export const refusedWhileRollingScenario: Scenario = {
  name: 'conversation-refused-while-rolling',
  team: () => deskTeam('v1'),
  drive: async (_baton, env) => {
    const { chat, reply } = await refusedWhileRolling(env, 'record-conversation-refused-while-rolling-v');
    if ((reply as { output?: string }).output !== 'A1 refunded (v1)')
      throw new Error(`expected the refund answered on v1, got ${String(reply)}`);
    return chat.id;
  },
};

/**
 * A migration of a stranded turn refused: the refund's turn stranded on v1 (v2's worker refuses its
 * step) and waiting out its pause, then v2's worker gone and v1's back, stale beside the newest team
 * registered. No worker takes the conversation onto v2 within `teamMismatchTimeout`: the migration
 * is refused with `TeamMismatchError`, and the turn goes on on v1, the approval given standing.
 */
export async function migrationRefusedInTurn(env: DevServer, taskQueue: string) {
  const { baton, chat, v2 } = await strandedTurn(env, taskQueue, { teamMismatchTimeout: '2 seconds' });
  // Past the timeout, the turn pauses a minute between tries.
  await new Promise((r) => setTimeout(r, 3000));
  await v2.stop();
  const v1 = await deskWorker(env, 'v1', taskQueue);
  // A worker trusts what it read of the registry for a second (activities/staleTeam.ts).
  await new Promise((r) => setTimeout(r, 1500));
  const started = Date.now();
  const refused = await Promise.race([
    baton.migrateConversation(chat.id).then(
      (moved) => new Error(`the migration was made: ${JSON.stringify(moved)}`),
      (err: unknown) => err as Error,
    ),
    new Promise<Error>((r) =>
      setTimeout(() => r(new Error('the migration was neither made nor refused in 30 s')), 30_000).unref(),
    ),
  ]);
  const waitedMs = Date.now() - started;
  // The turn goes on on v1, no longer stranded: the refund's message, sent again with its key, waits for the reply.
  const reply = await chat.send('refund order A1', { idempotencyKey: 'refund' }).catch((err: unknown) => err as Error);
  return { baton, chat, refused, waitedMs, reply, v1 };
}

export const migrationRefusedInTurnScenario: Scenario = {
  name: 'conversation-migration-refused-in-turn',
  team: () => deskTeam('v1'),
  drive: async (_baton, env) => {
    const { chat, refused, reply, v1 } = await migrationRefusedInTurn(
      env,
      'record-conversation-migration-refused-in-turn-v',
    );
    try {
      if (refused.name !== 'TeamMismatchError')
        throw new Error(`expected the migration refused with TeamMismatchError, got ${String(refused)}`);
      if (!('output' in reply) || reply.output !== 'A1 refunded (v1)')
        throw new Error(`expected the refund answered on v1, got ${String(reply)}`);
      await chat.end();
      return chat.id;
    } finally {
      await v1.stop();
    }
  },
};
