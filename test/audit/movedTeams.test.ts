/**
 * `baton audit --verify` on the export of a conversation that moved teams between turns (a real
 * export, archived by the model drill): its first turn ran on team v1, whose rules did not gate the
 * handoff triage → support; the export lists v2's, which do. The turn's handoff is not judged by the
 * rules of a team it did not run on: it counts as unchecked, and the export verifies.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AuditExport } from '../../src/audit/export';
import { verifyAuditExport } from '../../src/audit/verifyExport';
import { rechained } from '../helpers/forgery';

const fixture = JSON.parse(
  fs.readFileSync(path.join(__dirname, 'fixtures', 'conversation-moved-teams.export.json'), 'utf8'),
) as { exportKeys: { kid: string; publicKey: string }[]; export: { events: { event: Record<string, unknown> }[] } };

describe('the export of a conversation that moved teams between turns', () => {
  it('verifies, its turns on the earlier team counted unchecked rather than judged by the listed team', () => {
    const kinds = fixture.export.events.map((e) => [e.event.kind, e.event.team]);
    expect(kinds).toContainEqual(['team_snapshot', 'model@v1']);
    expect(kinds).toContainEqual(['team_changed', undefined]);
    const result = verifyAuditExport(fixture.export, { exportKeys: fixture.exportKeys });
    expect(result.failure).toBeUndefined();
    expect(result).toMatchObject({ ok: true, events: 45, unchecked: 1, approvedCalls: 1 });
  });

  it('holds a turn the export says ran on the listed team to its rules: the handoff that names no approval is refused', () => {
    const doc = structuredClone(fixture.export) as unknown as AuditExport;
    // Every digest made again, the first turn's team snapshot saying v2: that turn's handoff needed an approval.
    const snapshot = doc.events.find((e) => (e.event as { team?: string }).team === 'model@v1')!;
    (snapshot.event as { team: string }).team = 'model@v2';
    const result = verifyAuditExport(rechained(doc, { recorded: true }), { acceptUntrustedHead: true });
    expect(result.failure).toMatchObject({
      kind: 'handoff',
      reason:
        "the handoff triage → support happened, and the chain's approval rules need an approval for it, but it names none",
    });
  });
});
