import { describe, expect, it } from 'vitest';
import { scripted, Team } from '../../src';
import { approveHandoffSignal, conversationQuery } from '../../src/workflow';
import { scriptedAgent } from '../helpers/agents';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const server = useTemporalServer();

describe('conversation across continue-as-new', () => {
  it('runs across three runs with an approval carried over, and loses nothing', async () => {
    const team = new Team([
      scriptedAgent('triage', [{ text: 'Hello.' }, { handoff: { to: 'refunds', message: 'refund order 42' } }]),
      scriptedAgent('refunds', [{ text: 'Refunded order 42.' }, { text: 'Anything else about 42?' }], {
        approval: { approvers: ['alice'] },
      }),
    ]);
    await withWorker(server.env, team, async (baton) => {
      const chat = baton.conversation('triage', { options: { continueAsNewAfterEvents: 20 } });
      const first = await chat.send('hi', { idempotencyKey: 'turn-1' });
      expect(first).toMatchObject({ turn: 1, agent: 'triage', output: 'Hello.' });

      // The second message waits for alice; refused decisions grow the history until the run continues as new.
      const second = chat.send('I want a refund', { idempotencyKey: 'turn-2' });
      const [pending] = await waitFor(
        () => chat.status().then((v) => v.pendingApprovals),
        (p) => p.length === 1,
      );
      const waitingRun = (await chat.handle.describe()).runId;
      let runId = waitingRun;
      for (let i = 0; i < 30 && runId === waitingRun; i++) {
        await chat.handle.signal(approveHandoffSignal, { handoffId: pending!.handoffId, approver: 'mallory' });
        runId = (await chat.handle.describe()).runId;
      }
      expect(runId).not.toBe(waitingRun);

      // The next run has the approval, the turn waiting for it, and everything before it.
      const view = await waitFor(
        () => chat.handle.query(conversationQuery),
        (v) => v.pendingApprovals.length === 1,
      );
      expect(view).toMatchObject({
        status: 'awaiting_approval',
        activeAgent: 'triage',
        turns: 2,
        current: { turn: 2, message: 'I want a refund', idempotencyKey: 'turn-2' },
      });
      expect(view.pendingApprovals[0]).toEqual(pending);
      expect(view.runs).toBeGreaterThanOrEqual(3);
      expect(view.usage.modelCalls).toBe(1);
      // Visibility lists it with the conversation's current run (a run whose own first events pass 20 may continue as new once more).
      const listed = await waitFor(
        async () => ({ all: await baton.pending(), current: (await chat.handle.describe()).runId }),
        ({ all, current }) => all.some((p) => p.workflowId === chat.id && p.runId === current),
      );
      expect(listed.all.find((p) => p.workflowId === chat.id)?.handoffId).toBe(pending!.handoffId);

      await baton.approve(chat.id, pending!.handoffId, { approver: 'alice' });
      const reply = await second;
      expect(reply).toMatchObject({
        turn: 2,
        agent: 'refunds',
        output: 'Refunded order 42.',
        idempotencyKey: 'turn-2',
      });
      expect(reply.handoffs).toMatchObject([
        {
          from: 'triage',
          to: 'refunds',
          approval: { outcome: 'approved', approver: 'alice', handoffId: pending!.handoffId },
        },
      ]);

      // Sticky after the runs: refunds answers, and the first reply is still remembered by its key.
      expect(await chat.send('thanks', { idempotencyKey: 'turn-3' })).toMatchObject({
        turn: 3,
        agent: 'refunds',
        output: 'Anything else about 42?',
      });
      expect(await chat.send('hi', { idempotencyKey: 'turn-1' })).toEqual(first);
      const after = await chat.status();
      expect(after).toMatchObject({ turns: 3, handoffs: 1, activeAgent: 'refunds' });
      expect(after.usage.modelCalls).toBe(4);

      const audit = await chat.audit();
      expect(audit.runIds.length).toBeGreaterThanOrEqual(3);
      expect(audit.turns.map((t) => [t.turn, t.message, t.status, t.answeredBy])).toEqual([
        [1, 'hi', 'answered', 'triage'],
        [2, 'I want a refund', 'answered', 'refunds'],
        [3, 'thanks', 'answered', 'refunds'],
      ]);
      const turn2 = audit.turns[1]!;
      expect(turn2.runIds.length).toBeGreaterThanOrEqual(2);
      expect(turn2.approvals.map((a) => a.kind)).toEqual([
        'approval_requested',
        ...Array.from({ length: turn2.approvals.length - 2 }, () => 'decision_refused'),
        'approval_decided',
      ]);
      expect(turn2.handoffs.map((h) => h.to)).toEqual(['refunds']);
    });
  });

  it('carries messages queued behind a waiting turn into the next run and answers them in order', async () => {
    const team = new Team([
      scriptedAgent('triage', [{ handoff: { to: 'refunds', message: 'refund' } }]),
      scriptedAgent('refunds', [], {
        approval: { approvers: ['alice'] },
        model: scripted({ steps: [{ text: 'r1' }, { text: 'r2' }, { text: 'r3' }], requireAllSteps: false }),
      }),
    ]);
    await withWorker(server.env, team, async (baton) => {
      const chat = baton.conversation('triage', { options: { continueAsNewAfterEvents: 20 } });
      // Sent one after the other, so their order is known; each waits behind the first.
      const replies = [chat.send('a', { idempotencyKey: 'a' })];
      const [pending] = await waitFor(
        () =>
          chat.status().then(
            (v) => v.pendingApprovals,
            () => [],
          ),
        (p) => p.length === 1,
      );
      for (const m of ['b', 'c']) {
        replies.push(chat.send(m, { idempotencyKey: m }));
        await waitFor(
          () => chat.status(),
          (v) => v.queued === replies.length - 1,
        );
      }
      const before = (await chat.handle.describe()).runId;
      let runId = before;
      for (let i = 0; i < 30 && runId === before; i++) {
        await chat.handle.signal(approveHandoffSignal, { handoffId: pending!.handoffId, approver: 'mallory' });
        runId = (await chat.handle.describe()).runId;
      }
      expect(runId).not.toBe(before);
      expect(
        await waitFor(
          () => chat.status(),
          (v) => v.runs > 1 && v.pendingApprovals.length === 1,
        ),
      ).toMatchObject({ queued: 2, current: { turn: 1, message: 'a' } });
      await baton.approve(chat.id, pending!.handoffId, { approver: 'alice' });
      expect(await Promise.all(replies)).toMatchObject([
        { turn: 1, output: 'r1', agent: 'refunds' },
        { turn: 2, output: 'r2', agent: 'refunds' },
        { turn: 3, output: 'r3', agent: 'refunds' },
      ]);
      const audit = await chat.audit();
      expect(audit.turns.map((t) => t.message)).toEqual(['a', 'b', 'c']);
      expect(audit.waiting).toEqual([]);
    });
  });
});
