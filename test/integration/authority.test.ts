/**
 * Authority over a running chain, on a real server with a real worker, driven by clients that are
 * not baton's (raw `client.workflow` calls and the `temporal` CLI): overrides may tighten what
 * protects a chain but loosen it only with an operator's signature by a key the team trusts; a
 * chain started at a gated agent waits for the approval a handoff into it needs, or is refused.
 */
import { describe, expect, it } from 'vitest';
import {
  approveHandoffSignal,
  decideHandoffUpdate,
  overrideRunSignal,
  WorkflowType,
  type RunOverrides,
} from '../../src/workflow';
import { signDecision, signOverrides } from '../../src/client/signing';
import { toBatonError } from '../../src/client';
import { keys } from '../helpers/signing';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { nextApproval } from '../histories/auditScenarios';
import { ops, overrideRecords, team, temporal } from './authority.fixtures';

const server = useTemporalServer();

describe('overrides', () => {
  it(
    'tighten freely, loosen only with an operator signature the team trusts, from any client',
    { timeout: 120_000 },
    async () => {
      await withWorker(server.env, team(), async (baton) => {
        const run = await baton.start('desk', 'open it');
        const waiting = await nextApproval(run);
        expect(waiting).toMatchObject({ from: 'desk', to: 'vault', requireSignature: true });
        const handle = server.env.client.workflow.getHandle(run.workflowId);
        const send = async (o: unknown, n: number) => {
          await handle.signal(overrideRunSignal, o as RunOverrides);
          return (await overrideRecords(baton, run, n)).at(-1)!;
        };
        const mallorysKey = { kid: 'mallory-1', approvers: ['alice'], publicKey: keys.mallory.publicKey };

        // The two attacks, by a raw client: the sender's own key for alice, and signatures switched off.
        expect(await send({ options: { approverKeys: [mallorysKey] } }, 1)).toMatchObject({
          kind: 'overrides_refused',
          problems: [
            expect.stringContaining('"approverKeys": key "mallory-1" adds a key the run did not trust'),
            expect.stringContaining("operator's signed override"),
          ],
        });
        expect(await send({ options: { requireSignature: true, maxHandoffs: 3 } }, 2)).toMatchObject({
          kind: 'overrides_applied',
          options: { requireSignature: true, maxHandoffs: 3 },
        });
        expect(await send({ options: { requireSignature: false } }, 3)).toMatchObject({
          kind: 'overrides_refused',
          problems: [
            expect.stringContaining('"requireSignature" from true to off loosens it; allowed: true'),
            expect.any(String),
          ],
        });
        expect(await send({ options: { maxHandoffs: 9 } }, 4)).toMatchObject({
          kind: 'overrides_refused',
          problems: [
            expect.stringContaining('"maxHandoffs" from 3 to 9 loosens it; allowed: 3 or lower'),
            expect.any(String),
          ],
        });
        // The temporal CLI: a rule that takes the approval away.
        await temporal(server.env.address, [
          'workflow',
          'signal',
          '--workflow-id',
          run.workflowId,
          '--name',
          'overrideRun',
          '--input',
          JSON.stringify({ options: { approvals: [{ to: 'vault', required: false }] } }),
        ]);
        expect((await overrideRecords(baton, run, 5)).at(-1)).toMatchObject({
          kind: 'overrides_refused',
          problems: [
            expect.stringMatching(/^"approvals": a handoff (entering|desk →) vault would need no approval/),
            expect.any(String),
          ],
        });
        await temporal(server.env.address, [
          'workflow',
          'signal',
          '--workflow-id',
          run.workflowId,
          '--name',
          'overrideRun',
          '--input',
          JSON.stringify({
            options: { approvals: [{ to: 'vault', approvers: ['alice', 'mallory'], requireSignature: true }] },
          }),
        ]);
        expect((await overrideRecords(baton, run, 6)).at(-1)).toMatchObject({
          kind: 'overrides_refused',
          problems: [expect.stringContaining('could be decided by mallory, not only alice'), expect.any(String)],
        });

        // Forged operator signatures: mallory's key, another chain's, other overrides than signed, an operator the key is not for.
        const loosen = { options: { maxHandoffs: 20 } };
        const forged = await signOverrides(
          { kid: 'ops-1', sign: keys.mallory.signer.sign },
          { workflowId: run.workflowId, operator: 'ops', overrides: loosen },
        );
        expect(await send(forged, 7)).toMatchObject({
          kind: 'overrides_refused',
          operator: 'ops',
          problems: [expect.stringContaining('does not verify with key "ops-1"')],
        });
        const elsewhere = await signOverrides(ops.signer, {
          workflowId: 'another-chain',
          operator: 'ops',
          overrides: loosen,
        });
        expect(await send(elsewhere, 8)).toMatchObject({
          kind: 'overrides_refused',
          problems: [expect.stringContaining('is for chain another-chain')],
        });
        const swapped = {
          ...(await signOverrides(ops.signer, { workflowId: run.workflowId, operator: 'ops', overrides: loosen })),
          options: { requireSignature: false },
        };
        expect(await send(swapped, 9)).toMatchObject({
          kind: 'overrides_refused',
          problems: [expect.stringContaining('is for other overrides')],
        });
        const asAlice = await signOverrides(ops.signer, {
          workflowId: run.workflowId,
          operator: 'alice',
          overrides: loosen,
        });
        expect(await send(asAlice, 10)).toMatchObject({
          kind: 'overrides_refused',
          problems: [expect.stringContaining('signs for ops, not for alice')],
        });
        const approverAsOperator = await signOverrides(keys.alice.signer, {
          workflowId: run.workflowId,
          operator: 'alice',
          overrides: loosen,
        });
        expect(await send(approverAsOperator, 11)).toMatchObject({
          kind: 'overrides_refused',
          problems: [expect.stringContaining('no operator key "alice-1"')],
        });

        // Mallory's key was never trusted: her signature as alice is refused.
        const sig = await signDecision(keys.mallory.signer, {
          workflowId: run.workflowId,
          waiting,
          decision: { approver: 'alice', decision: 'approve' },
        });
        const refused = toBatonError(
          await run.handle
            .executeUpdate(decideHandoffUpdate, {
              args: [{ handoffId: waiting.handoffId, approver: 'alice', decision: 'approve', signature: sig }],
            })
            .catch((e: unknown) => e),
        );
        expect(refused).toMatchObject({ name: 'SignatureRefusedError', problem: 'unknown_key' });

        // The operator's signed loosening applies, with who made it on the record.
        const signed = await signOverrides(ops.signer, {
          workflowId: run.workflowId,
          operator: 'ops',
          overrides: loosen,
        });
        expect(await send(signed, 12)).toMatchObject({
          kind: 'overrides_applied',
          options: { maxHandoffs: 20 },
          operator: 'ops',
          identity: { method: 'signed', operator: 'ops', kid: 'ops-1' },
          loosened: [expect.stringContaining('"maxHandoffs" from 3 to 20')],
        });

        await baton.approve(run.workflowId, waiting.handoffId, { approver: 'alice', signer: keys.alice.signer });
        expect((await run.result()).output).toBe('vault opened');
      });
    },
  );
});

describe('starts at gated agents', () => {
  it('wait for the approval a handoff into the agent needs, whoever starts them', { timeout: 120_000 }, async () => {
    await withWorker(server.env, team(), async (baton, taskQueue) => {
      // A raw start at vault, as the issue's `POST /v1/runs {agent: "vault"}` did.
      const raw = await server.env.client.workflow.start(WorkflowType.HANDOFF_RUN, {
        taskQueue,
        workflowId: `raw-vault-${Date.now()}`,
        args: [{ agent: 'vault', input: 'open the vault' }],
      });
      const run = baton.getRun(raw.workflowId);
      const entry = await nextApproval(run);
      expect(entry).toMatchObject({
        from: '(start)',
        to: 'vault',
        approvers: ['alice'],
        requireSignature: true,
        message: 'open the vault',
      });
      // An unsigned alice (a signal from anyone) is refused; alice's signature lets the chain in.
      await raw.signal(approveHandoffSignal, { handoffId: entry.handoffId, approver: 'alice' });
      await baton.approve(run.workflowId, entry.handoffId, { approver: 'alice', signer: keys.alice.signer });
      expect(await run.result()).toMatchObject({ output: 'vault opened', finalAgent: 'vault' });
      const audit = await baton.audit(run.workflowId);
      expect(audit.events.filter((e) => e.kind === 'decision_refused')).toHaveLength(1);

      // The support example's refunds, started by the temporal CLI: alice rejects, the chain fails typed.
      const id = `cli-refunds-${Date.now()}`;
      await temporal(server.env.address, [
        'workflow',
        'start',
        '--type',
        WorkflowType.HANDOFF_RUN,
        '--task-queue',
        taskQueue,
        '--workflow-id',
        id,
        '--input',
        JSON.stringify({ agent: 'refunds', input: 'refund $59.90' }),
      ]);
      const refunds = baton.getRun(id);
      const asked = await nextApproval(refunds);
      expect(asked).toMatchObject({ from: '(start)', to: 'refunds', approvers: ['alice'] });
      await baton.reject(id, asked.handoffId, { approver: 'alice', reason: 'no refund without a ticket' });
      const failed = toBatonError(await refunds.result().catch((e: unknown) => e));
      expect(failed).toMatchObject({
        name: 'GatedEntryError',
        agent: 'refunds',
        reason: expect.stringContaining('rejected by alice'),
      });
      expect(
        (await baton.audit(id)).events.some(
          (e) => e.kind === 'tool_call' || (e.kind === 'model_turn' && e.agent === 'refunds'),
        ),
      ).toBe(false);

      // An ungated agent starts at once; start options may not take the team's approval away.
      expect((await (await baton.start('triage', 'hello')).result()).output).toBe('triaged');
      const loose = await server.env.client.workflow.start(WorkflowType.HANDOFF_RUN, {
        taskQueue,
        workflowId: `loose-${Date.now()}`,
        args: [{ agent: 'desk', input: 'x', options: { approvals: [{ to: 'vault', required: false }] } }],
      });
      expect(toBatonError(await loose.result().catch((e: unknown) => e))).toMatchObject({
        name: 'LooseningRefusedError',
        problems: [expect.stringContaining('"approvals": a handoff entering vault would need no approval')],
      });
    });
  });

  it(
    'are refused with GatedEntryError when the team says so, and entries it names start as before',
    { timeout: 60_000 },
    async () => {
      await withWorker(
        server.env,
        team({ agents: ['desk', 'triage'], onGated: 'refuse' }),
        async (baton, taskQueue) => {
          const raw = await server.env.client.workflow.start(WorkflowType.HANDOFF_RUN, {
            taskQueue,
            workflowId: `refused-${Date.now()}`,
            args: [{ agent: 'vault', input: 'open' }],
          });
          expect(toBatonError(await raw.result().catch((e: unknown) => e))).toMatchObject({
            name: 'GatedEntryError',
            agent: 'vault',
            entries: ['desk', 'triage'],
          });
          const unlisted = await baton.start('refunds', 'refund');
          expect(toBatonError(await unlisted.result().catch((e: unknown) => e))).toMatchObject({
            name: 'GatedEntryError',
            agent: 'refunds',
          });
          const desk = await baton.start('desk', 'open it');
          expect(await nextApproval(desk)).toMatchObject({ from: 'desk', to: 'vault' });
          await desk.handle.terminate('done');
        },
      );
    },
  );
});
