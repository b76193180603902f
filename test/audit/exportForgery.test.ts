/**
 * Forged audit exports of recorded chains with signed decisions: events that say what did not
 * happen, though every digest was made again, are refused at the event; a forgery made whole with
 * another key is caught by the keys or the head one trusts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { exportAudit, signAuditExport, type AuditExport } from '../../src/audit/export';
import { verifyAuditExport } from '../../src/audit/verifyExport';
import { decisionPayload, signingInput, compactJws, factsOfRecord } from '../../src/client/signing';
import { keys, teamKeys } from '../helpers/signing';
import { rechained } from '../helpers/forgery';
import { at, decided, signedChain, signedExport, trust } from './signedExport';

let base: AuditExport;
beforeAll(async () => {
  base = await signedExport();
});
const fresh = () => structuredClone(base);

describe('a forged audit export', () => {
  it('refuses an export whose events say what did not happen, though every digest was made again', () => {
    const failure = (doc: AuditExport) => verifyAuditExport(rechained(doc, { recorded: true }), trust).failure;
    const seqOf = (doc: AuditExport, kind: string, nth = 0) => at(doc, kind, nth).seq;
    const payoutApproval = (doc: AuditExport) =>
      (at(doc, 'approval_requested').event as { handoffId: string }).handoffId;

    // A signed decision deleted: the tool call it approved still ran.
    let doc = fresh();
    doc.events.splice(seqOf(doc, 'approval_decided'), 1);
    expect(failure(doc)).toMatchObject({
      kind: 'tool_call',
      reason: `the tool call desk/payout ran under approval ${payoutApproval(doc)}, but no decision before it approved that call: a decision was removed, or moved after the call`,
    });
    // … and the call's link to it too: the team's policy still needs one.
    doc = fresh();
    doc.events.splice(seqOf(doc, 'approval_decided'), 1);
    delete (at(doc, 'tool_call').event as { approval?: string }).approval;
    expect(failure(doc)).toMatchObject({
      kind: 'tool_call',
      reason: expect.stringContaining(
        "the tool call desk/payout ran, and the team's policy needs an approval for it, but it names none",
      ),
    });
    // The handoff's decision deleted (and its record on the handoff kept, or dropped).
    doc = fresh();
    doc.events.splice(seqOf(doc, 'approval_decided', 1), 1);
    expect(failure(doc)).toMatchObject({
      kind: 'handoff',
      reason: expect.stringContaining('the handoff desk → vault happened under approval'),
    });
    delete (at(doc, 'handoff').event as { approval?: unknown }).approval;
    expect(failure(doc)).toMatchObject({
      kind: 'handoff',
      reason:
        "the handoff desk → vault happened, and the chain's approval rules need an approval for it, but it names none",
    });

    // The same signed decision twice.
    doc = fresh();
    const decision = at(doc, 'approval_decided');
    doc.events.splice(decision.seq + 1, 0, structuredClone(decision));
    expect(failure(doc)).toMatchObject({
      seq: decision.seq + 1,
      kind: 'approval_decided',
      reason: expect.stringContaining(
        `approval ${payoutApproval(doc)} is decided twice (first at event #${decision.seq})`,
      ),
    });

    // The approved call run twice under its one decision in one run (a replay's marker between them would carry the decision once more).
    doc = fresh();
    const call = at(doc, 'tool_call');
    doc.events.splice(call.seq + 1, 0, structuredClone(call));
    expect(failure(doc)).toMatchObject({
      seq: call.seq + 1,
      kind: 'tool_call',
      reason: expect.stringContaining('ran under already: an approved call runs once'),
    });

    // A decision moved before its request.
    doc = fresh();
    const [request] = doc.events.splice(seqOf(doc, 'approval_decided'), 1);
    doc.events.splice(seqOf(doc, 'approval_requested'), 0, request!);
    expect(failure(doc)).toMatchObject({
      seq: doc.events.indexOf(request!),
      reason: expect.stringContaining(
        'which no approval_requested before it in the chain asked for: a decision was moved before its request',
      ),
    });

    // A signed decision downgraded to a claimed one, on a request that required a signature.
    doc = fresh();
    const record = decided(doc);
    delete record.signature;
    record.identity = { method: 'claimed' };
    expect(failure(doc)).toMatchObject({
      kind: 'approval_decided',
      reason: expect.stringContaining(
        'required a signed decision (its request says requireSignature), but this decision carries no signature',
      ),
    });

    // A rewritten tool result: the digest of what history recorded names another; made again, only the head's signature (or history) tells.
    doc = fresh();
    (at(doc, 'tool_call').event as { result: string }).result = 'paid 4 to mallory';
    expect(verifyAuditExport(rechained(doc), trust).failure).toMatchObject({
      kind: 'tool_call',
      reason: expect.stringContaining('what it shows is not what its recorded digest names'),
    });
    expect(failure(doc)).toMatchObject({
      seq: doc.events.length,
      reason: expect.stringContaining('the head signature vouches for'),
    });
  });

  it('catches a forgery made whole with another key by the trusted export keys, or else by the approver keys or the head kept elsewhere', async () => {
    const doc = fresh();
    const head = doc.head;
    const chain = at(doc, 'chain').event as { keys: { kid: string; publicKey: string }[] };
    chain.keys.find((k) => k.kid === 'alice-1')!.publicKey = keys.mallory.publicKey;
    // Mallory signs alice's decision again with her key, listed under alice's key id.
    const record = decided(doc);
    const asked = at(doc, 'approval_requested').event as never;
    const payload = decisionPayload(
      factsOfRecord(doc.workflowId, asked, record)!,
      Math.floor(Date.parse(record.decidedAt) / 1000),
    );
    const input = signingInput('alice-1', payload);
    record.signature = compactJws(
      input,
      new Uint8Array(keys.mallory.signer.sign(new TextEncoder().encode(input)) as Uint8Array),
    );
    // Mallory signs the head too, with her own key.
    const forged = await signAuditExport(rechained(doc, { recorded: true }), keys.mallory.signer);
    expect(verifyAuditExport(forged, trust).failure).toMatchObject({
      reason: expect.stringContaining(
        'the head is signed with key "mallory-1", which you were not told to trust (you trust audit-1)',
      ),
    });
    expect(verifyAuditExport(forged).failure).toMatchObject({
      reason: expect.stringContaining('you named no key to trust'),
    });
    // Told to accept an untrusted head, only pinned approver keys or a kept head catch it.
    const accepting = { acceptUntrustedHead: true };
    expect(verifyAuditExport(forged, accepting)).toMatchObject({
      ok: true,
      headSignature: { status: 'untrusted', kid: 'mallory-1' },
    });
    expect(verifyAuditExport(forged, { ...accepting, trustedKeys: teamKeys }).failure).toMatchObject({
      kind: 'approval_decided',
      reason: 'key alice-1 is not among the keys you trust (or has another public key there)',
    });
    expect(verifyAuditExport(forged, { ...accepting, head }).failure).toMatchObject({
      reason: expect.stringContaining('this is another document'),
    });
    // An export without a signed head fails unless accepted; one of the earlier schema says what to do.
    expect(verifyAuditExport(exportAudit(structuredClone(signedChain)), trust).failure).toMatchObject({
      reason: expect.stringContaining('the head is not signed'),
    });
    expect(verifyAuditExport({ ...fresh(), schema: 'baton.audit-export/v1' }, trust).failure).toMatchObject({
      seq: -1,
      reason: expect.stringContaining('export the chain again'),
    });
  });
});
