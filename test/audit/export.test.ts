/**
 * The verifiable export of recorded chains with signed decisions: a true export verifies offline;
 * each way of editing it is caught at the event it touches, whether or not the editor recomputed
 * the digests; no change to a true export passes (forgeries: exportForgery.test.ts).
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { exportAudit, type AuditExport } from '../../src/audit/export';
import { formatTimeline } from '../../src/audit/format';
import { verifyAuditExport } from '../../src/audit/verifyExport';
import { keys, teamKeys } from '../helpers/signing';
import { rechained } from '../helpers/forgery';
import { at, decided, forwardChain, signedChain, signedExport, trust } from './signedExport';

let base: AuditExport;
beforeAll(async () => {
  base = await signedExport();
});
const fresh = () => structuredClone(base);

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
});
