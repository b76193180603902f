/**
 * The invariants of passkey decisions: `passkey-once` (after every step: no assertion decides twice,
 * the counters a chain took from a passkey only go forward, and every passkey decision the workflow
 * took is on the record as one) and, at the end, `passkey-export-verifies` (the real
 * `baton audit --export` and `--verify` accept every chain a passkey decided).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ApprovalRecord } from '../../src/workflow';
import type { AuditEvent } from '../../src/audit';
import { exportKeys, keys } from '../helpers/signing';
import { broken, clip, type Harness, type Invariant } from './harness';
import { ALICE, logs } from './passkeyLog';

/** The passkey decisions of a root's chain, in history order. */
async function passkeyDecisions(
  h: Harness,
  id: string,
): Promise<(Extract<AuditEvent, { kind: 'approval_decided' }> & ApprovalRecord)[] | undefined> {
  const audit = await h.baton.audit(id).catch(() => undefined);
  return audit?.events.filter(
    (e): e is Extract<AuditEvent, { kind: 'approval_decided' }> & ApprovalRecord =>
      e.kind === 'approval_decided' && (e as ApprovalRecord).identity?.passkey !== undefined,
  );
}

export const passkeyInvariants: Invariant[] = [
  {
    name: 'passkey-once',
    when: 'step',
    async check(h: Harness) {
      for (const [id, log] of logs) {
        const root = h.model.roots.find((r) => r.id === id);
        if (!root) continue;
        const decisions = await passkeyDecisions(h, id);
        if (!decisions) continue;
        const seen = new Map<string, string>();
        let last: number | undefined;
        for (const d of decisions) {
          const count = d.identity!.passkey!.signCount;
          if (last !== undefined && count <= last && count !== 0)
            broken(
              h,
              'passkey-once',
              `${id}: a passkey decision of ${d.handoffId} took counter ${count} after ${last}: a replayed assertion acted`,
            );
          last = count;
          if (d.signature && seen.has(d.signature))
            broken(h, 'passkey-once', `${id}: one assertion decided ${seen.get(d.signature)} and ${d.handoffId}`);
          if (d.signature) seen.set(d.signature, d.handoffId);
          if (d.signature && log.refused.has(d.signature))
            broken(h, 'passkey-once', `${id}: an assertion the harness made to be refused decided ${d.handoffId}`);
        }
        for (const [approval, signature] of log.taken) {
          if (!decisions.some((d) => d.handoffId === approval && d.signature === signature))
            broken(
              h,
              'passkey-once',
              `${id}: alice's passkey decision of ${approval}, which the workflow took, is not on the record as a passkey decision`,
            );
        }
      }
    },
  },
  {
    name: 'passkey-export-verifies',
    when: 'end',
    async check(h: Harness) {
      const [keyFile, keysFile] = [
        path.join(h.system.dir, 'passkey-audit-key.jwk'),
        path.join(h.system.dir, 'passkey-export-keys.json'),
      ];
      fs.writeFileSync(keyFile, JSON.stringify(keys.audit.jwk));
      fs.writeFileSync(keysFile, JSON.stringify(exportKeys));
      for (const [id, log] of logs) {
        if (log.taken.size === 0 || !h.model.roots.some((r) => r.id === id)) continue;
        const file = path.join(h.system.dir, `${id}.passkey-export.json`);
        const made = await h.system.cli(['audit', id, '--export', file, '--key', keyFile]);
        if (made.code !== 0) {
          broken(
            h,
            'passkey-export-verifies',
            `baton audit ${id} --export exited ${made.code}: ${clip(made.stderr, 300)}`,
          );
          continue;
        }
        const checked = await h.system.cli(['audit', '--verify', file, '--export-keys', keysFile]);
        if (checked.code !== 0)
          broken(
            h,
            'passkey-export-verifies',
            `baton audit --verify of ${id}'s export (passkey decisions ${[...log.taken.keys()].join(', ')}) exited ${checked.code}: ${clip(checked.stdout + checked.stderr, 300)}`,
          );
        else if (!new RegExp(`keys [^)]*${ALICE.kid}`).test(checked.stdout))
          broken(
            h,
            'passkey-export-verifies',
            `baton audit --verify of ${id}'s export names no decision signed with ${ALICE.kid}: ${clip(checked.stdout, 300)}`,
          );
      }
    },
  },
];
