/**
 * Signed decisions in a conversation, on a real server: a turn whose tool call and handoff need
 * signatures goes on only with valid ones; an unsigned, forged or replayed decision is refused and
 * the turn goes on waiting; the reply and the conversation's audit show who signed.
 */
import { describe, expect, it } from 'vitest';
import { decideHandoffUpdate, SignatureRefusedError, type PendingApproval } from '../../src/workflow';
import { signDecision } from '../../src/client/signing';
import { toBatonError } from '../../src/client';
import { keys, signedTeam } from '../helpers/signing';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const server = useTemporalServer();

describe('signed decisions in a conversation', () => {
  it('let a turn go on only with a valid signature for that very decision, and record who signed', async () => {
    await withWorker(server.env, signedTeam(), async (baton) => {
      const chat = baton.conversation('desk');
      const reply = chat.send('pay bob', { idempotencyKey: 'pay-1' });
      const waiting = async (seen: string[] = []): Promise<PendingApproval> => {
        // The conversation starts with the first message: until then there is nothing to ask.
        const pending = await waitFor(
          () =>
            chat.status().then(
              (v) => v.pendingApprovals.filter((p) => !seen.includes(p.handoffId)),
              () => [],
            ),
          (p) => p.length === 1,
        );
        return pending[0]!;
      };
      const sign = (p: PendingApproval, approver = 'alice', signer = keys.alice.signer) =>
        signDecision(signer, { workflowId: chat.id, waiting: p, decision: { approver, decision: 'approve' } });
      const refused = async (decision: Record<string, unknown>) => {
        const err = toBatonError(
          await chat.handle.executeUpdate(decideHandoffUpdate, { args: [decision as never] }).then(
            () => undefined,
            (e: unknown) => e,
          ),
        );
        expect(err).toBeInstanceOf(SignatureRefusedError);
        return err as SignatureRefusedError;
      };

      const call = await waiting();
      expect(call).toMatchObject({ to: 'tool:payout', requireSignature: true });
      const base = { handoffId: call.handoffId, approver: 'alice', decision: 'approve' as const };
      expect(await refused(base)).toMatchObject({ problem: 'missing' });
      expect(
        await refused({
          ...base,
          signature: await sign(call, 'alice', { kid: 'alice-1', sign: keys.mallory.signer.sign }),
        }),
      ).toMatchObject({ problem: 'bad_signature' });
      expect(
        await refused({ ...base, signature: await sign({ ...call, handoffId: 'another-approval' }) }),
      ).toMatchObject({ problem: 'mismatch' });
      expect(await refused({ ...base, approver: 'bob', signature: await sign(call, 'bob') })).toMatchObject({
        problem: 'wrong_approver',
      });
      // Still waiting for the same decision, nothing decided.
      expect((await chat.status()).pendingApprovals.map((p) => p.handoffId)).toEqual([call.handoffId]);

      const paid = await baton.approve(chat.id, call.handoffId, {
        approver: 'bob',
        comment: 'ok',
        signer: keys.bob.signer,
      });
      expect(paid).toMatchObject({
        outcome: 'approved',
        approver: 'bob',
        identity: { method: 'signed', kid: 'bob-1' },
      });

      const handoff = await waiting([call.handoffId]);
      expect(handoff).toMatchObject({ from: 'desk', to: 'vault', requireSignature: true });
      // A signature made for the tool call does not decide the handoff.
      expect(
        await refused({
          handoffId: handoff.handoffId,
          approver: 'alice',
          decision: 'approve',
          signature: await sign(call),
        }),
      ).toMatchObject({ problem: 'mismatch' });
      await baton.approve(chat.id, handoff.handoffId, { approver: 'alice', signer: keys.alice.signer });

      const answer = await reply;
      expect(answer).toMatchObject({ agent: 'vault', output: 'vault opened' });
      expect(answer.handoffs).toMatchObject([
        {
          from: 'desk',
          to: 'vault',
          approval: { outcome: 'approved', approver: 'alice', identity: { method: 'signed', kid: 'alice-1' } },
        },
      ]);

      // The turn's audit: the signed decisions in order; refusals by update were never written.
      const [turn] = (await chat.audit()).turns;
      const decided = turn!.steps.flatMap((e) =>
        e.kind === 'approval_decided' ? [[e.approver, e.identity?.method, e.identity?.kid]] : [],
      );
      expect(decided).toEqual([
        ['bob', 'signed', 'bob-1'],
        ['alice', 'signed', 'alice-1'],
      ]);
      expect(turn!.steps.filter((e) => e.kind === 'decision_refused')).toEqual([]);
    });
  });
});
