/**
 * The verifiable export of recorded chains with signed decisions: a true export verifies offline;
 * each way of editing it is caught at the event it touches, whether or not the editor recomputed
 * the digests; a wholesale forgery with another key is caught by the keys or the head one trusts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildAudit } from '../../src/audit/chain';
import { exportAudit, signAuditExport, type AuditExport } from '../../src/audit/export';
import { formatTimeline } from '../../src/audit/format';
import { verifyAuditExport } from '../../src/audit/verifyExport';
import { decisionPayload, signingInput, compactJws, factsOfRecord } from '../../src/client/signing';
import type { ApprovalRecord } from '../../src/workflow';
import { exportKeys, keys, teamKeys } from '../helpers/signing';
import { rechained } from '../helpers/forgery';

const DIR = path.join(__dirname, '..', 'histories');

function recorded(file: string, children: ReturnType<typeof buildAudit>[] = []) {
  const { workflowId, ...history } = JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8')) as {
    workflowId: string;
  };
  const chain = buildAudit(workflowId, [{ runId: 'run-1', events: historyFromJSON(history).events ?? [] }]);
  return children.length > 0 ? { ...chain, children } : chain;
}

const signedChain = recorded('signed-decisions.json');
const forwardChain = recorded('signed-forward.json', [recorded('signed-forward.leaf-1.1.json')]);
const trust = { exportKeys };
let base: AuditExport;
beforeAll(async () => {
  base = await signAuditExport(exportAudit(structuredClone(signedChain)), keys.audit.signer);
});
const fresh = () => structuredClone(base);

const at = (doc: AuditExport, kind: string, nth = 0) => doc.events.filter((e) => e.event.kind === kind)[nth]!;
const decided = (doc: AuditExport, nth = 0) => at(doc, 'approval_decided', nth).event as unknown as ApprovalRecord;

describe('a verifiable audit export', () => {
  it('verifies a true export: its digests, and every signature against the keys each chain trusted', () => {
    const doc = fresh();
    expect(verifyAuditExport(doc, trust)).toMatchObject({
      ok: true,
      events: doc.events.length,
      signed: 2,
      claimed: 0,
      keys: ['alice-1', 'service-1'],
      approvedCalls: 2,
      recorded: 5,
      head: doc.head,
      headSignature: { status: 'trusted', kid: 'audit-1' },
    });
    expect(
      verifyAuditExport(JSON.parse(JSON.stringify(doc)), { ...trust, trustedKeys: teamKeys, head: doc.head }).ok,
    ).toBe(true);
    expect(at(doc, 'tool_call').event).toMatchObject({
      approval: (at(doc, 'approval_requested').event as { handoffId: string }).handoffId,
      resultEventId: expect.any(Number),
    });
    expect(at(doc, 'chain').event).toMatchObject({
      kind: 'chain',
      team: expect.stringMatching(/^signed@/),
      keys: expect.arrayContaining([expect.objectContaining({ kid: 'alice-1', source: 'team' })]),
    });
    // The specialist's decision, forwarded from the top chain, is verified in the specialist's chain with the key its run named.
    const tree = exportAudit(forwardChain);
    expect(tree.events.filter((e) => e.event.kind === 'chain').map((e) => e.workflowId)).toEqual([
      forwardChain.workflowId,
      `${forwardChain.workflowId}/leaf-1.1`,
    ]);
    expect(verifyAuditExport(tree, { acceptUntrustedHead: true })).toMatchObject({
      ok: true,
      signed: 1,
      keys: ['carol-1'],
      headSignature: { status: 'unsigned' },
    });
    // The timeline says how each approver was proven, and the refusals why.
    const timeline = formatTimeline(signedChain);
    expect(timeline).toContain(
      'approved by "alice" with edited arguments {"amount":4,"to":"bob"} via update, signed (key alice-1)',
    );
    expect(timeline).toContain(
      'approved by "alice" via update, token checked by the service (issuer https://issuer.example, subject user-42; key service-1): "via the service"',
    );
    expect(timeline).toMatch(
      /refused approve from "alice" \(claimed\) \(signal\): this tool call needs a signed decision/,
    );
  });

  it('catches each edit at the event it touches, whether or not the digests were made again', () => {
    const failedAt = (doc: AuditExport) => verifyAuditExport(doc, trust).failure;
    const seqOf = (doc: AuditExport, kind: string, nth = 0) => at(doc, kind, nth).seq;

    let doc = fresh();
    decided(doc).approver = 'bob';
    expect(failedAt(doc)).toMatchObject({
      seq: seqOf(doc, 'approval_decided'),
      kind: 'approval_decided',
      reason: expect.stringContaining('its digest does not match'),
    });
    expect(failedAt(rechained(doc))).toMatchObject({
      seq: seqOf(doc, 'approval_decided'),
      reason: 'the decision\'s signature does not hold: key "alice-1" signs for alice, not for bob',
    });

    doc = fresh();
    const removed = seqOf(doc, 'approval_requested', 1);
    doc.events.splice(removed, 1);
    expect(failedAt(doc)).toMatchObject({
      seq: removed,
      reason: expect.stringContaining('an event was removed, added or moved'),
    });
    expect(failedAt(rechained(doc))).toMatchObject({
      kind: 'approval_decided',
      reason: expect.stringContaining('which no approval_requested before it in the chain asked for'),
    });

    doc = fresh();
    const [a, b] = [seqOf(doc, 'approval_requested'), seqOf(doc, 'approval_decided')];
    [doc.events[a], doc.events[b]] = [doc.events[b]!, doc.events[a]!];
    expect(failedAt(doc)).toMatchObject({ seq: a });
    expect(failedAt(rechained(doc))).toMatchObject({
      seq: a,
      kind: 'approval_decided',
      reason: expect.stringContaining('which no approval_requested before it in the chain asked for'),
    });

    doc = fresh();
    const chain = at(doc, 'chain').event as { keys: { kid: string; publicKey: string }[] };
    chain.keys.find((k) => k.kid === 'alice-1')!.publicKey = keys.mallory.publicKey;
    expect(failedAt(doc)).toMatchObject({ seq: 0, kind: 'chain' });
    expect(failedAt(rechained(doc))).toMatchObject({
      seq: seqOf(doc, 'approval_decided'),
      reason: expect.stringContaining('does not verify with key "alice-1"'),
    });

    doc = fresh();
    const record = decided(doc, 1);
    record.signature = record.signature!.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    expect(failedAt(doc)).toMatchObject({ seq: seqOf(doc, 'approval_decided', 1) });
    expect(failedAt(rechained(doc))).toMatchObject({
      seq: seqOf(doc, 'approval_decided', 1),
      reason: expect.stringMatching(/does not verify|64 bytes/),
    });

    doc = fresh();
    decided(doc).editedArguments = '{"amount":4000,"to":"bob"}';
    expect(failedAt(rechained(doc))).toMatchObject({
      reason: 'the edited arguments are not those whose digest the approver signed',
    });

    doc = fresh();
    decided(doc).identity = { method: 'signed', kid: 'bob-1', keySource: 'team' };
    expect(failedAt(rechained(doc))).toMatchObject({
      reason: 'the record says signed with key bob-1, but the signature shows signed with key alice-1',
    });

    doc = fresh();
    doc.events.pop();
    expect(verifyAuditExport(doc, trust)).toMatchObject({
      ok: false,
      failure: { reason: expect.stringContaining('events were cut off the end') },
    });
    // Cut, with the head made again: the signature vouches for another head and count.
    expect(failedAt(rechained(doc))).toMatchObject({
      reason: expect.stringMatching(/^the head signature vouches for .*"events":22.*, not this document .*"events":21/),
    });
  });

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

  it('never throws on a document made by hand, and fails any change to a true one (property)', () => {
    const base = fresh();
    const paths: (string | number)[][] = [];
    const walk = (v: unknown, at: (string | number)[]) => {
      paths.push(at);
      if (v && typeof v === 'object')
        for (const [k, x] of Object.entries(v)) walk(x, [...at, Array.isArray(v) ? Number(k) : k]);
    };
    walk(base.events, ['events']);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: paths.length - 1 }), fc.jsonValue(), fc.boolean(), (i, value, again) => {
        const doc = structuredClone(base) as unknown as Record<string, unknown>;
        const at = paths[i]!;
        const parent = at
          .slice(0, -1)
          .reduce<Record<string | number, unknown>>((o, k) => o[k] as Record<string | number, unknown>, doc);
        const before = JSON.stringify(parent[at.at(-1)!]);
        parent[at.at(-1)!] = value;
        const edited = again
          ? rechained(doc as unknown as AuditExport, { recorded: true })
          : (doc as unknown as AuditExport);
        const checked = verifyAuditExport(JSON.parse(JSON.stringify(edited)), trust);
        // Whatever was written, the check answers; rechained or not, a change that the digests (and so the signed head) see fails.
        if (again ? edited.head !== base.head : JSON.stringify(value) !== before) expect(checked.ok).toBe(false);
      }),
      { numRuns: 150 },
    );
    for (const junk of [null, 42, { schema: 'baton.audit-export/v1', workflowId: 'w', events: [null, { seq: 0 }] }])
      expect(verifyAuditExport(junk).ok).toBe(false);
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
