/**
 * A conversation's turn stranded by a deploy (its team's worker gone) is answered at once with what
 * is happening, keeps its approvals, waits past `teamMismatchTimeout` instead of failing, and goes
 * on: when a worker of its team comes back, or on the current team after a migration from the
 * library or the CLI.
 */
import { describe, expect, it } from 'vitest';
import { TurnStrandedError } from '../../src/workflow';
import { cli } from '../helpers/cli';
import { taskQueue, useTemporalServer } from '../helpers/temporal';
import { Baton } from '../../src/client/baton';
import { TEAM_REGISTRY_MEMO, teamRegistryId, type TeamRegistryState } from '../../src/common/teamRegistry';
import {
  deskWorker,
  migrationRefusedInTurn,
  refunds,
  refusedWhileRolling,
  strandedTurn,
  untilStatus,
} from '../histories/strandedScenarios';

const server = useTemporalServer();

const refundsOf = (id: string) => refunds.filter((r) => r.key.startsWith(`${id}:`)).map((r) => r.version);

describe('a conversation turn stranded by a deploy', () => {
  it('tells its caller at once which team it waits for, waits past teamMismatchTimeout, and goes on on the current team after baton.migrateConversation', async () => {
    const started = Date.now();
    const { baton, chat, told, v2 } = await strandedTurn(server.env, taskQueue(), { teamMismatchTimeout: '2 seconds' });
    try {
      expect(told).toBeInstanceOf(TurnStrandedError);
      expect(told).toMatchObject({
        workflowId: chat.id,
        turn: 2,
        strandedTurn: 2,
        idempotencyKey: 'refund',
        version: 'desk@v1',
        worker: 'desk@v2',
      });
      expect(told.message).toContain(`baton replay --on-current-team ${chat.id}`);
      expect(Date.now() - started).toBeLessThan(60_000);
      // Past the timeout, the turn still waits, with its approval.
      await new Promise((r) => setTimeout(r, 4000));
      const view = await untilStatus(chat, (v) => v.status === 'waiting_for_worker');
      expect(view.current).toMatchObject({
        turn: 2,
        idempotencyKey: 'refund',
        stranded: { version: 'desk@v1', worker: 'desk@v2' },
      });
      // A message sent meanwhile is taken, and its caller told what it waits behind.
      await expect(chat.send('and order B2?', { idempotencyKey: 'b2' })).rejects.toMatchObject({
        name: 'TurnStrandedError',
        turn: 3,
        strandedTurn: 2,
      });

      const migration = await baton.migrateConversation(chat.id);
      expect(migration).toEqual({ from: 'desk@v1', to: 'desk@v2', turn: 2 });
      const reply = await chat.send('refund order A1', { idempotencyKey: 'refund' });
      expect(reply).toMatchObject({ turn: 2, output: 'A1 refunded (v2)' });
      // The approval given before the deploy stands: the refund ran once, on v2, and nobody was asked again.
      expect(refundsOf(chat.id)).toEqual(['v2']);
      expect((await chat.send('and order B2?', { idempotencyKey: 'b2' })).output).toBe('bye (v2)');
      const audit = await chat.audit();
      const turn = audit.turns.find((t) => t.turn === 2)!;
      expect(turn.approvals.map((a) => a.kind)).toEqual(['approval_requested', 'approval_decided']);
      expect(turn.stranded).toMatchObject({
        version: 'desk@v1',
        worker: 'desk@v2',
        missing: [expect.stringContaining('issueRefund')],
      });
      expect(audit.teamChanges).toEqual([
        expect.objectContaining({ from: 'desk@v1', to: 'desk@v2', beforeTurn: 2, by: 'migration' }),
      ]);
    } finally {
      await v2.stop();
    }
  });

  it('goes on from baton replay --on-current-team', async () => {
    const queue = taskQueue();
    const { chat, v2 } = await strandedTurn(server.env, queue);
    try {
      const out = await cli(['replay', chat.id, '--on-current-team', '--task-queue', queue], {
        TEMPORAL_ADDRESS: server.env.address,
      });
      expect(out.stderr).toBe('');
      expect(out.code).toBe(0);
      expect(out.stdout).toContain(
        `conversation ${chat.id} goes on, moved from team desk@v1 to desk@v2: turn 2 goes on from its last step`,
      );
      expect((await chat.send('refund order A1', { idempotencyKey: 'refund' })).output).toBe('A1 refunded (v2)');
      expect(refundsOf(chat.id)).toEqual(['v2']);
    } finally {
      await v2.stop();
    }
  });

  it('asked to end while stranded, is still moved: it answers the turn on the current team, then ends', async () => {
    const queue = taskQueue();
    const { baton, chat, v2 } = await strandedTurn(server.env, queue);
    try {
      // The end waits for the messages the conversation took; the stranded turn is one of them.
      const ended = chat.end();
      ended.catch(() => undefined);
      await untilStatus(chat, (v) => v.status === 'waiting_for_worker');
      expect(await baton.migrateConversation(chat.id)).toEqual({ from: 'desk@v1', to: 'desk@v2', turn: 2 });
      expect((await chat.send('refund order A1', { idempotencyKey: 'refund' })).output).toBe('A1 refunded (v2)');
      expect(await ended).toMatchObject({ endedBy: 'requested', turns: 2 });
      expect(refundsOf(chat.id)).toEqual(['v2']);
      // Ended, it is not moved again.
      await expect(baton.migrateConversation(chat.id)).rejects.toMatchObject({ name: 'ConversationEndedError' });
    } finally {
      await v2.stop();
    }
  });

  it('goes on on its own team when a worker of it comes back, its approval standing', async () => {
    const queue = taskQueue();
    const { chat, v2 } = await strandedTurn(server.env, queue, { teamMismatchTimeout: '2 minutes' });
    const v1 = await deskWorker(server.env, 'v1', queue);
    try {
      await untilStatus(chat, (v) => v.status === 'idle');
      expect((await chat.send('refund order A1', { idempotencyKey: 'refund' })).output).toBe('A1 refunded (v1)');
      expect(refundsOf(chat.id)).toEqual(['v1']);
    } finally {
      await Promise.all([v1.stop(), v2.stop()]);
    }
  });

  it('between turns, with no worker of the current team to take it, refuses the migration and goes on as it was', async () => {
    const queue = taskQueue();
    const baton = new Baton({ client: server.env.client, taskQueue: queue });
    const v1 = await deskWorker(server.env, 'v1', queue);
    try {
      const chat = baton.conversation('desk', { options: { teamMismatchTimeout: '2 seconds' } });
      expect((await chat.send('hello', { idempotencyKey: 'hello' })).turn).toBe(1);
      // v2 is registered as the newest team on the queue, and its worker goes away.
      await (await deskWorker(server.env, 'v2', queue)).stop();
      const registry = server.env.client.workflow.getHandle(teamRegistryId(queue));
      for (let at = Date.now(); ; await new Promise((r) => setTimeout(r, 100))) {
        const memo = (await registry.describe()).memo?.[TEAM_REGISTRY_MEMO] as TeamRegistryState | undefined;
        if (memo?.teams.some((t) => t.id === 'desk@v2')) break;
        if (Date.now() - at > 30_000) throw new Error(`desk@v2 was not registered on ${queue}`);
      }
      // A worker trusts what it read of the registry for a second (activities/staleTeam.ts).
      await new Promise((r) => setTimeout(r, 1500));
      await expect(baton.migrateConversation(chat.id)).rejects.toMatchObject({ name: 'TeamMismatchError' });
      // Its next turn runs on its own team.
      const refund = chat.send('refund order A1', { idempotencyKey: 'refund' });
      const waiting = await untilStatus(chat, (v) => v.pendingApprovals.length > 0);
      await baton.approve(chat.id, waiting.pendingApprovals[0]!.handoffId, { approver: 'alice' });
      expect(await refund).toMatchObject({ turn: 2, output: 'A1 refunded (v1)' });
      expect(refundsOf(chat.id)).toEqual(['v1']);
    } finally {
      await v1.stop();
    }
  });

  it('stranded, with no worker of the current team to take it, refuses the migration within teamMismatchTimeout and goes on on its own team', async () => {
    const { chat, refused, waitedMs, reply, v1 } = await migrationRefusedInTurn(server.env, taskQueue());
    try {
      expect(refused).toMatchObject({ name: 'TeamMismatchError' });
      expect(waitedMs).toBeLessThan(30_000);
      expect(reply).toMatchObject({ turn: 2, output: 'A1 refunded (v1)' });
      // The approval given before the deploy stands: the refund ran once, on v1, and nobody was asked again.
      expect(refundsOf(chat.id)).toEqual(['v1']);
      const audit = await chat.audit();
      expect(audit.teamChanges).toEqual([]);
      expect(audit.turns.find((t) => t.turn === 2)?.approvals.map((a) => a.kind)).toEqual([
        'approval_requested',
        'approval_decided',
      ]);
    } finally {
      await v1.stop();
    }
  });

  it('is not stranded by a refusal while a deploy rolls: a worker of its team takes a next try, and its caller gets the reply', async () => {
    const { chat, reply } = await refusedWhileRolling(server.env, taskQueue());
    expect(reply).toMatchObject({ turn: 2, output: 'A1 refunded (v1)' });
    expect(refundsOf(chat.id)).toEqual(['v1']);
    expect((await chat.audit()).turns.find((t) => t.turn === 2)?.stranded).toBeUndefined();
  });
});
