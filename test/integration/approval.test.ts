import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  ApprovalRefusedError,
  ApprovalTimeoutError,
  Baton,
  createWorker,
  defineAgent,
  scripted,
  Team,
  type BatonRun,
} from '../../src';
import { BatonStatusAttribute, type ApprovalPolicy, type ScriptedStep } from '../../src/workflow';
import { toBatonError } from '../../src/client';
import { findTemporalBinary } from '../../src/devserver/binary';
import { recordingScripted } from '../helpers/models';
import { taskQueue, useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { scriptedAgent as agent } from '../helpers/agents';

const server = useTemporalServer();

/** triage hands off to refunds, which needs approval; after a refusal triage answers itself. */
const refundTeam = (approval: ApprovalPolicy, refundsSteps: ScriptedStep[] = [{ text: 'refunded' }]) =>
  new Team([
    defineAgent({
      id: 'triage',
      instructions: 'You are triage.',
      // The second step answers only when the handoff does not go ahead.
      model: scripted({
        steps: [{ handoff: { to: 'refunds', message: 'refund order 42' } }, { text: 'triage answered itself' }],
        requireAllSteps: false,
      }),
    }),
    agent('refunds', refundsSteps, { approval }),
  ]);

const waitingOn = (run: BatonRun) =>
  waitFor(
    () => run.pendingApprovals(),
    (p) => p.length > 0,
  ).then((p) => p[0]!);

describe('approval of handoffs', () => {
  it('waits for approval, marks the run awaiting_approval, and proceeds when approved', async () => {
    await withWorker(server.env, refundTeam({ approvers: ['alice'] }), async (baton) => {
      const run = await baton.start('triage', 'I want a refund');
      const pending = await waitingOn(run);
      expect(pending).toMatchObject({
        from: 'triage',
        to: 'refunds',
        message: 'refund order 42',
        approvers: ['alice'],
        onTimeout: 'reject',
      });
      expect(pending.handoffId).toMatch(/^[0-9a-f-]{36}$/);
      expect((await run.status()).status).toBe('awaiting_approval');
      expect((await run.handle.describe()).typedSearchAttributes.get(BatonStatusAttribute)).toBe('awaiting_approval');

      const decision = await baton.approve(run.workflowId, undefined, { approver: 'alice', comment: 'fine' });
      expect(decision).toMatchObject({
        handoffId: pending.handoffId,
        outcome: 'approved',
        approver: 'alice',
        comment: 'fine',
        via: 'update',
      });
      const result = await run.result();
      expect(result.output).toBe('refunded');
      expect(result.handoffChain[0]?.approval).toEqual(decision);
      expect((await run.handle.describe()).typedSearchAttributes.get(BatonStatusAttribute)).toBe('completed');
    });
  });

  it('tells the source agent who rejected the handoff and why, and lets it go on', async () => {
    const { calls, providers } = recordingScripted();
    await withWorker(
      server.env,
      refundTeam({}),
      async (baton) => {
        const run = await baton.start('triage', 'I want a refund');
        await waitingOn(run);
        const decision = await baton.reject(run.workflowId, undefined, { approver: 'bob', reason: 'order is too old' });
        expect(decision).toMatchObject({ outcome: 'rejected', approver: 'bob', reason: 'order is too old' });
        const result = await run.result();
        expect(result).toMatchObject({ output: 'triage answered itself', finalAgent: 'triage', handoffChain: [] });
      },
      { providers },
    );
    expect(calls[1]?.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: expect.stringMatching(/^The handoff to refunds was rejected by bob: order is too old\./),
    });
  });

  it.each([
    ['reject', 'triage answered itself', []],
    ['approve', 'refunded', ['triage>refunds']],
  ] as const)("applies onTimeout '%s' when nobody decides in time", async (onTimeout, output, chain) => {
    const result = await withWorker(server.env, refundTeam({ timeout: '1 second', onTimeout }), (baton) =>
      baton.run('triage', 'refund'),
    );
    expect(result.output).toBe(output);
    expect(result.handoffChain.map((h) => `${h.from}>${h.to}`)).toEqual(chain);
    if (onTimeout === 'approve')
      expect(result.handoffChain[0]?.approval).toMatchObject({ outcome: 'timed_out', via: 'timeout' });
  });

  it("fails the run with ApprovalTimeoutError under onTimeout 'fail'", async () => {
    const err = await withWorker(server.env, refundTeam({ timeout: '1 second', onTimeout: 'fail' }), (baton) =>
      baton.run('triage', 'refund').catch((e: unknown) => e),
    );
    expect(err).toBeInstanceOf(ApprovalTimeoutError);
    expect(err).toMatchObject({ from: 'triage', to: 'refunds', timeout: '1 second' });
  });

  it('refuses approvers not allowed, unknown ids and second decisions; signals carrying them are ignored', async () => {
    await withWorker(
      server.env,
      refundTeam({ approvers: ['alice'] }, [{ text: 'refunded', delayMs: 1500 }]),
      async (baton) => {
        const run = await baton.start('triage', 'refund');
        const { handoffId } = await waitingOn(run);

        const notAllowed = await baton
          .approve(run.workflowId, handoffId, { approver: 'mallory' })
          .catch((e: unknown) => e);
        expect(notAllowed).toBeInstanceOf(ApprovalRefusedError);
        expect((notAllowed as ApprovalRefusedError).reason).toBe(
          'mallory may not decide this handoff (approvers: alice)',
        );

        const unknown = await baton
          .approve(run.workflowId, 'no-such-id', { approver: 'alice' })
          .catch((e: unknown) => e);
        expect(unknown).toBeInstanceOf(ApprovalRefusedError);
        expect((unknown as ApprovalRefusedError).reason).toBe(
          `no handoff no-such-id is waiting for approval (waiting: ${handoffId})`,
        );

        await expect(baton.approve(run.workflowId, handoffId, { approver: ' ' })).rejects.toThrow(
          /approver must name who decides/,
        );

        // A signal from someone not allowed changes nothing and does not fail the run.
        await run.handle.signal('approveHandoff', { handoffId, approver: 'mallory' });
        expect((await run.pendingApprovals()).map((p) => p.handoffId)).toEqual([handoffId]);

        await baton.approve(run.workflowId, handoffId, { approver: 'alice' });
        const twice = await baton.reject(run.workflowId, handoffId, { approver: 'alice' }).catch((e: unknown) => e);
        expect(twice).toBeInstanceOf(ApprovalRefusedError);
        expect((twice as ApprovalRefusedError).reason).toBe(
          `handoff ${handoffId} was already decided (approved by alice)`,
        );
        await run.handle.signal('rejectHandoff', { handoffId, approver: 'alice', reason: 'changed my mind' });

        expect((await run.result()).output).toBe('refunded');
        const audit = await baton.audit(run.workflowId);
        const refused = audit.events.filter((e) => e.kind === 'decision_refused');
        expect(refused.map((e) => e.kind === 'decision_refused' && [e.approver, e.via, e.reason])).toEqual([
          ['mallory', 'signal', 'mallory may not decide this handoff (approvers: alice)'],
          ['alice', 'signal', `handoff ${handoffId} was already decided (approved by alice)`],
        ]);
      },
    );
  });

  it('takes a plain JSON signal from the temporal CLI, the way another program would', async () => {
    const cli = findTemporalBinary('cli')!;
    await withWorker(server.env, refundTeam({}), async (baton) => {
      const run = await baton.start('triage', 'refund');
      const { handoffId } = await waitingOn(run);
      await promisify(execFile)(cli, [
        'workflow',
        'signal',
        '--address',
        server.env.address,
        '--workflow-id',
        run.workflowId,
        '--name',
        'approveHandoff',
        '--input',
        JSON.stringify({ handoffId, approver: 'ops-bot', comment: 'from the CLI' }),
      ]);
      const result = await run.result();
      expect(result.handoffChain[0]?.approval).toMatchObject({
        outcome: 'approved',
        approver: 'ops-bot',
        comment: 'from the CLI',
        via: 'signal',
      });
    });
  });

  it('keeps waiting across a worker restart', async () => {
    const queue = taskQueue();
    const team = refundTeam({});
    const first = await createWorker({ team, connection: server.env.nativeConnection, taskQueue: queue });
    const baton = new Baton({ client: server.env.client, taskQueue: queue });
    const run = await first.runUntil(async () => {
      const started = await baton.start('triage', 'refund');
      await waitingOn(started);
      return started;
    });
    const second = await createWorker({ team, connection: server.env.nativeConnection, taskQueue: queue });
    const result = await second.runUntil(async () => {
      const { handoffId } = (await run.pendingApprovals())[0]!;
      await baton.approve(run.workflowId, handoffId, { approver: 'alice' });
      return run.result();
    });
    expect(result.output).toBe('refunded');
    expect(result.handoffChain[0]?.approval?.approver).toBe('alice');
  });

  it('lists the handoffs waiting across chains from visibility', async () => {
    await withWorker(server.env, refundTeam({ approvers: ['alice'] }), async (baton) => {
      const runs = await Promise.all([1, 2, 3].map(() => baton.start('triage', 'refund')));
      await Promise.all(runs.map(waitingOn));
      const ids = new Set(runs.map((r) => r.workflowId));
      const pending = await waitFor(
        () => baton.pending(),
        (list) => list.filter((p) => ids.has(p.workflowId)).length === 3,
      );
      for (const p of pending.filter((x) => ids.has(x.workflowId))) {
        expect(p).toMatchObject({ from: 'triage', to: 'refunds', message: 'refund order 42', approvers: ['alice'] });
        expect(p.ageMs).toBeGreaterThanOrEqual(0);
      }
      for (const run of runs) await baton.approve(run.workflowId, undefined, { approver: 'alice' });
      await Promise.all(runs.map((r) => r.result()));
      await waitFor(
        () => baton.pending(),
        (list) => !list.some((p) => ids.has(p.workflowId)),
      );
    });
  });

  it('applies edge rules over the target policy, and refuses run rules that would turn an approval off', async () => {
    const team = new Team(
      [
        agent('a', [{ handoff: { to: 'b', message: 'x' } }]),
        agent('b', [{ handoff: { to: 'c', message: 'y' } }]),
        agent('c', [{ text: 'done' }], { approval: { required: true } }),
      ],
      { approvals: [{ from: 'a', to: 'b', approvers: ['lead'] }] },
    );
    await withWorker(server.env, team, async (baton) => {
      // A run's options may not turn off the edge rule a → b or the target rule of c: only a signed operator override loosens.
      const loosened = await baton
        .run('a', 'go', {
          approvals: [
            { from: 'a', to: 'b', required: false },
            { to: 'c', required: false },
          ],
        })
        .catch((e: unknown) => e);
      expect(toBatonError(loosened)).toMatchObject({
        name: 'LooseningRefusedError',
        problems: [expect.stringContaining('"approvals": a handoff a → b would need no approval')],
      });

      const run = await baton.start('a', 'go');
      expect((await waitingOn(run)).approvers).toEqual(['lead']);
      await baton.approve(run.workflowId, undefined, { approver: 'lead' });
      const second = await waitFor(
        () => run.pendingApprovals(),
        (p) => p.length === 1 && p[0]!.to === 'c',
      );
      expect(second[0]?.approvers).toBeUndefined();
      await baton.approve(run.workflowId, undefined, { approver: 'anyone' });
      expect((await run.result()).handoffChain.map((h) => h.approval?.approver)).toEqual(['lead', 'anyone']);
    });
  });
});
