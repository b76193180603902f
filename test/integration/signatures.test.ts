/**
 * Signed decisions on a real server: a chain whose policies require signatures goes on only with
 * valid ones (the library's signer, a key file through the CLI, Python's `cryptography`), refuses
 * missing, forged, replayed and stale signatures and keys of other approvers or other times, and
 * records how each approver was established; a signature survives its forward to a specialist.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LIMITS, type Baton } from '../../src';
import { approveHandoffSignal, decideHandoffUpdate, type ApprovalRecord } from '../../src/workflow';
import type { ApproverKey } from '../../src/client/signing';
import { toBatonError } from '../../src/client';
import { nextApproval } from '../histories/auditScenarios';
import { pythonWithCryptography } from '../helpers/python';
import { carolKey, keys, signedTeam } from '../helpers/signing';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { batonCommand, refusal, signed } from './signatures.fixtures';

const server = useTemporalServer();
const root = path.resolve(__dirname, '../..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-signatures-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A `baton` command, run in this process against the test's server. */
const cli = (argv: string[]) => batonCommand(server.env.address, argv);

describe('signed decisions', () => {
  it('go ahead only when signed by a key the chain trusts for the approver, for that very decision, in time', async () => {
    await withWorker(server.env, signedTeam(), async (baton) => {
      const run = await baton.start('desk', 'pay bob');
      const call = await nextApproval(run);
      expect(call).toMatchObject({ to: 'tool:payout', requireSignature: true });
      const base = { handoffId: call.handoffId, approver: 'alice', decision: 'approve' as const };

      expect(await refusal(run, base)).toMatchObject({
        problem: 'missing',
        reason: expect.stringContaining('needs a signed decision'),
      });
      expect(
        await refusal(run, {
          ...base,
          approver: 'bob',
          signature: await signed(keys.alice.signer, run, call, { approver: 'bob', decision: 'approve' }),
        }),
      ).toMatchObject({
        problem: 'wrong_approver',
        reason: 'key "alice-1" signs for alice, not for bob',
      });
      expect(
        await refusal(run, { ...base, signature: await signed(keys.mallory.signer, run, call, base) }),
      ).toMatchObject({
        problem: 'unknown_key',
        reason: expect.stringContaining('no key "mallory-1" is trusted by this chain'),
      });
      const forger = { kid: 'alice-1', sign: keys.mallory.signer.sign };
      expect(await refusal(run, { ...base, signature: await signed(forger, run, call, base) })).toMatchObject({
        problem: 'bad_signature',
      });
      // Replays: a signature for another approval, and for another call.
      expect(
        await refusal(run, {
          ...base,
          signature: await signed(keys.alice.signer, run, { ...call, handoffId: 'another-approval' }, base),
        }),
      ).toMatchObject({
        problem: 'mismatch',
        reason: expect.stringContaining('a signature decides one approval only'),
      });
      expect(
        await refusal(run, {
          ...base,
          signature: await signed(
            keys.alice.signer,
            run,
            { ...call, tool: { ...call.tool!, callHash: 'other' } },
            base,
          ),
        }),
      ).toMatchObject({ problem: 'mismatch', reason: expect.stringContaining('not the waiting call') });
      expect(
        await refusal(run, {
          ...base,
          arguments: { amount: 4, to: 'bob' },
          signature: await signed(keys.alice.signer, run, call, base),
        }),
      ).toMatchObject({
        problem: 'mismatch',
        reason: expect.stringContaining("the signature is for the model's arguments"),
      });
      expect(
        await refusal(run, {
          ...base,
          signature: await signed(keys.alice.signer, run, call, base, Date.now() - 3_600_000),
        }),
      ).toMatchObject({ problem: 'stale' });
      expect(
        await refusal(run, { ...base, signature: await signed(keys.aliceOld.signer, run, call, base) }),
      ).toMatchObject({
        problem: 'key_not_valid',
        reason: expect.stringContaining('was retired at 2020-01-01T00:00:00Z'),
      });
      const oversized = toBatonError(
        await run.handle
          .executeUpdate(decideHandoffUpdate, { args: [{ ...base, signature: 'x'.repeat(LIMITS.signatureChars + 1) }] })
          .catch((e: unknown) => e),
      );
      expect(oversized).toMatchObject({
        name: 'InputTooLargeError',
        field: 'decision.signature',
        limit: LIMITS.signatureChars,
      });

      // Signals are refused by the run and recorded (an update's refusal comes back before anything is written).
      await run.handle.signal(approveHandoffSignal, {
        ...base,
        signature: await signed(forger, run, call, base),
      } as never);
      await run.handle.signal(approveHandoffSignal, {
        ...base,
        signature: await signed(keys.alice.signer, run, { ...call, handoffId: 'another-approval' }, base),
      } as never);
      const paid = await baton.approve(run.workflowId, call.handoffId, {
        approver: 'alice',
        arguments: { amount: 4, to: 'bob' },
        comment: 'four will do',
        signer: keys.alice.signer,
      });
      expect(paid).toMatchObject({
        outcome: 'approved',
        editedArguments: '{"amount":4,"to":"bob"}',
        identity: { method: 'signed', kid: 'alice-1', keySource: 'team' },
        signature: expect.stringMatching(/^eyJ/),
      });

      const handoff = await nextApproval(run, [call.handoffId]);
      expect(handoff).toMatchObject({ from: 'desk', to: 'vault', requireSignature: true });
      const python = pythonWithCryptography();
      let vault: ApprovalRecord;
      if (python.ok) {
        const pem = path.join(dir, 'alice.pem');
        fs.writeFileSync(pem, keys.alice.privateKey.export({ format: 'pem', type: 'pkcs8' }));
        const request = {
          key: pem,
          kid: 'alice-1',
          workflowId: run.workflowId,
          approval: handoff.handoffId,
          subject: { kind: 'handoff', from: 'desk', to: 'vault' },
          outcome: 'approve',
          approver: 'alice',
          note: 'signed in Python ✓',
        };
        const made = spawnSync(python.command, [path.join(root, 'examples/signatures/sign_decision.py')], {
          input: JSON.stringify(request),
          encoding: 'utf8',
          env: { ...process.env, ...python.env },
        });
        expect(made.stderr).toBe('');
        vault = await baton.approve(run.workflowId, handoff.handoffId, {
          approver: 'alice',
          comment: 'signed in Python ✓',
          signature: made.stdout.trim(),
        });
      } else {
        console.warn(`skipping the signature made in Python: ${python.why}`);
        vault = await baton.approve(run.workflowId, handoff.handoffId, {
          approver: 'alice',
          comment: 'signed in Python ✓',
          signer: keys.alice.signer,
        });
      }
      expect(vault).toMatchObject({ outcome: 'approved', identity: { method: 'signed', kid: 'alice-1' } });
      expect((await run.result()).output).toBe('vault opened');

      const audit = await baton.audit(run.workflowId);
      // Refusals of one activation are one record, with a count and the later ones as samples.
      const refused = audit.events.flatMap((e) =>
        e.kind === 'decision_refused' ? [e.reason, ...(e.samples ?? []).map((s) => s.reason)] : [],
      );
      expect(refused).toEqual([
        expect.stringMatching(/^the signature does not verify with key "alice-1"/),
        expect.stringMatching(/^the signature is for approval another-approval, not/),
      ]);
      expect(
        audit.events
          .filter((e) => e.kind === 'approval_decided')
          .map((e) => e.kind === 'approval_decided' && e.identity?.method),
      ).toEqual(['signed', 'signed']);

      const file = path.join(dir, 'desk.json');
      const auditKey = path.join(dir, 'audit.jwk');
      const exportKeys = path.join(dir, 'export-keys.json');
      fs.writeFileSync(auditKey, JSON.stringify(keys.audit.jwk));
      fs.writeFileSync(exportKeys, JSON.stringify([{ kid: keys.audit.kid, publicKey: keys.audit.publicKey }]));
      const exported = await cli(['audit', run.workflowId, '--export', file, '--key', auditKey]);
      expect(exported).toMatchObject({ code: 0 });
      const verified = await cli(['audit', '--verify', file, '--export-keys', exportKeys]);
      expect(verified.stdout).toMatch(/^verified: \d+ events, 2 signed decisions/m);
      expect(verified.code).toBe(0);
      const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as {
        events: { event: { kind: string; approver?: string } }[];
      };
      doc.events.find((e) => e.event.kind === 'approval_decided')!.event.approver = 'bob';
      fs.writeFileSync(file, JSON.stringify(doc));
      const tampered = await cli(['audit', '--verify', file, '--export-keys', exportKeys]);
      expect(tampered.code).toBe(1);
      expect(tampered.stdout + tampered.stderr).toMatch(/event #\d+ \(approval_decided/);
    });
  });

  it('survive the forward to a specialist, trust keys the run names, and record claimed and CLI-signed approvers', async () => {
    await withWorker(server.env, signedTeam(), async (baton: Baton) => {
      // The run requires signatures and trusts carol's key; its specialist inherits both.
      const run = await baton.start('top', 'open the safe', { requireSignature: true, approverKeys: [carolKey] });
      const waiting = await nextApproval(run);
      expect(waiting).toMatchObject({
        from: 'leaf',
        to: 'safe',
        requireSignature: true,
        workflowId: expect.stringMatching(new RegExp(`^${run.workflowId}/`)),
      });
      // Sent to the top chain, which forwards it to the specialist the approval waits in.
      expect(
        await refusal(run, { handoffId: waiting.handoffId, approver: 'carol', decision: 'approve' }),
      ).toMatchObject({ problem: 'missing' });
      const signature = await signed(keys.carol.signer, run, waiting, { approver: 'carol', decision: 'approve' });
      const forwarded = await run.handle.executeUpdate(decideHandoffUpdate, {
        args: [{ handoffId: waiting.handoffId, approver: 'carol', decision: 'approve', signature }],
      });
      expect(forwarded).toMatchObject({
        outcome: 'approved',
        identity: { method: 'signed', kid: 'carol-1', keySource: 'run' },
      });
      expect((await run.result()).output).toBe('top done');

      // Not required: a claimed name is recorded as claimed; a key made by baton keygen, signing through the CLI, as signed.
      const keyFile = path.join(dir, 'carol.jwk');
      const made = await cli(['keygen', '--approver', 'carol', '--kid', 'carol-cli', '--out', keyFile]);
      expect(made.code).toBe(0);
      await expect(cli(['keygen', '--approver', 'carol', '--out', keyFile])).rejects.toThrow(
        `${keyFile} exists; choose another file (a key is never overwritten)`,
      );
      const clerk = await baton.start('clerk', 'stamp A1', { approverKeys: [JSON.parse(made.stdout) as ApproverKey] });
      const stamp = await nextApproval(clerk);
      expect(stamp.requireSignature).toBeUndefined();
      expect(await baton.approve(clerk.workflowId, stamp.handoffId, { approver: 'bob' })).toMatchObject({
        identity: { method: 'claimed' },
      });
      const safe = await nextApproval(clerk, [stamp.handoffId]);
      const approved = await cli([
        'approve',
        clerk.workflowId,
        '--id',
        safe.handoffId,
        '--as',
        'carol',
        '--key',
        keyFile,
      ]);
      expect(approved.stderr).toBe('');
      expect(approved.stdout).toContain("approved by carol, signed (key carol-cli, trusted by the run's options)");
      expect((await clerk.result()).output).toBe('safe opened');
    });
  });
});
