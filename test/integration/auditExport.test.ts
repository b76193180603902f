/**
 * The signed, verifiable audit export on a real server, through the real `baton` command: a
 * chain's decisions are signed, its export's head is signed with the operator's key, and
 * `baton audit --verify` passes it by default; an export edited as an attacker would (every digest
 * made again) is refused, naming what is wrong: a signed decision deleted before the call it
 * approved, a decision copied, a decision moved before its request, a signed decision stripped to
 * a claimed one, a tool result rewritten (caught by the head's signature, and by history).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { signAuditExport, type AuditExport } from '../../src/audit/export';
import type { ApprovalRecord } from '../../src/workflow';
import { nextApproval } from '../histories/auditScenarios';
import { useCliSession } from '../helpers/cliSession';
import { exportKeys, keys, signedTeam } from '../helpers/signing';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { rechained } from '../helpers/forgery';

const server = useTemporalServer();
/** `baton audit`, which only reads the server and files: in one process for the file. */
const session = useCliSession();
const cli = session.cli.bind(session);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-audit-export-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const file = (name: string, content?: unknown) => {
  const p = path.join(dir, name);
  if (content !== undefined)
    fs.writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return p;
};
const auditKey = file('audit.jwk', keys.audit.jwk);
const trusted = file('export-keys.json', exportKeys);
const env = () => ({
  TEMPORAL_ADDRESS: server.env.address,
  BATON_AUDIT_KEY: undefined,
  BATON_SERVICE_KEY: undefined,
  BATON_AUDIT_KEYS: trusted,
});

async function verify(name: string, doc: AuditExport, ...flags: string[]) {
  return cli(['audit', '--verify', file(name, doc), ...flags], env());
}

describe('baton audit --export and --verify', () => {
  it('signs the head of an export and verifies it by default; refuses each edit an attacker makes, naming it', async () => {
    await withWorker(server.env, signedTeam(), async (baton) => {
      const run = await baton.start('desk', 'pay bob');
      const call = await nextApproval(run);
      await baton.approve(run.workflowId, call.handoffId, {
        approver: 'alice',
        comment: 'ok',
        signer: keys.alice.signer,
      });
      const handoff = await nextApproval(run, [call.handoffId]);
      await baton.approve(run.workflowId, handoff.handoffId, { approver: 'alice', signer: keys.alice.signer });
      expect((await run.result()).output).toBe('vault opened');

      const unsignedRefused = await cli(['audit', run.workflowId, '--export', file('none.json')], env());
      expect(unsignedRefused.code).toBe(2);
      expect(unsignedRefused.stderr).toContain("no key to sign the export's head");

      const exported = await cli(['audit', run.workflowId, '--export', file('audit.json')], {
        ...env(),
        BATON_AUDIT_KEY: auditKey,
      });
      expect(exported.stderr).toBe('');
      expect(exported.stdout).toContain(
        `head signed with key audit-1 (BATON_AUDIT_KEY), public key ${keys.audit.publicKey}`,
      );
      const doc = JSON.parse(fs.readFileSync(file('audit.json'), 'utf8')) as AuditExport;

      const ok = await cli(['audit', '--verify', file('audit.json')], env());
      expect(ok.stderr).toBe('');
      expect(ok.stdout).toMatch(
        /^verified: \d+ events, 2 signed decisions \(keys alice-1\), 0 with a claimed approver, 2 approved tool calls after their decisions$/m,
      );
      expect(ok.stdout).toContain(`head ${doc.head}, signed with key audit-1`);
      expect(ok.stdout).toContain('(trusted: BATON_AUDIT_KEYS)');
      expect(ok.code).toBe(0);
      const online = await cli(['audit', '--verify', file('audit.json'), '--against-history'], env());
      expect(online.stdout).toMatch(/matches history: 5 recorded results and approval events in 1 chain/);
      expect(online.code).toBe(0);

      // A key nobody said to trust: refused by default, accepted only when asked, loudly.
      const untrusted = await cli(['audit', '--verify', file('audit.json')], { ...env(), BATON_AUDIT_KEYS: undefined });
      expect(untrusted.code).toBe(1);
      expect(untrusted.stderr).toContain(
        'not verified: the head: the head is signed with key "audit-1", which you were not told to trust (you named no key to trust)',
      );
      const accepted = await cli(['audit', '--verify', file('audit.json'), '--accept-untrusted-head'], {
        ...env(),
        BATON_AUDIT_KEYS: undefined,
      });
      expect(accepted.code).toBe(0);
      expect(accepted.stderr).toMatch(/^WARNING: the head is NOT vouched for by a key you trust/);
      expect(accepted.stdout).toContain('NOT VOUCHED FOR (untrusted: key audit-1)');

      const of = (d: AuditExport, kind: string, nth = 0) => d.events.filter((e) => e.event.kind === kind)[nth]!;
      const payoutId = (of(doc, 'approval_requested').event as { handoffId: string }).handoffId;
      const refused = async (name: string, edited: AuditExport, pattern: RegExp) => {
        const out = await verify(name, rechained(edited, { recorded: true }));
        expect(out.code, out.stdout).toBe(1);
        expect(out.stderr).toMatch(pattern);
      };

      let d = structuredClone(doc);
      d.events.splice(of(d, 'approval_decided').seq, 1);
      await refused(
        'deleted.json',
        d,
        new RegExp(
          `event #\\d+ \\(tool_call in chain ${run.workflowId}\\): the tool call desk/payout ran under approval ${payoutId}, but no decision before it approved that call`,
        ),
      );

      d = structuredClone(doc);
      d.events.splice(of(d, 'approval_decided').seq + 1, 0, structuredClone(of(d, 'approval_decided')));
      await refused(
        'twice.json',
        d,
        new RegExp(`\\(approval_decided in chain .*\\): approval ${payoutId} is decided twice`),
      );

      d = structuredClone(doc);
      const [moved] = d.events.splice(of(d, 'approval_decided').seq, 1);
      d.events.splice(of(d, 'approval_requested').seq, 0, moved!);
      await refused(
        'moved.json',
        d,
        new RegExp(
          `\\(approval_decided in chain .*\\): it decides approval ${payoutId}, which no approval_requested before it in the chain asked for`,
        ),
      );

      d = structuredClone(doc);
      const record = of(d, 'approval_decided').event as unknown as ApprovalRecord;
      delete record.signature;
      record.identity = { method: 'claimed' };
      await refused(
        'claimed.json',
        d,
        new RegExp(
          `approval ${payoutId} required a signed decision \\(its request says requireSignature\\), but this decision carries no signature`,
        ),
      );

      d = structuredClone(doc);
      (of(d, 'tool_call').event as { result: string }).result = 'paid 4000 to mallory';
      await refused('result.json', d, /not verified: the head: the head signature vouches for .*, not this document/);
      // Signed again with a key of the attacker's own: untrusted; accepted anyway, history names the rewritten result.
      const resigned = await signAuditExport(rechained(d, { recorded: true }), keys.mallory.signer);
      expect((await verify('resigned.json', resigned)).stderr).toContain(
        'the head is signed with key "mallory-1", which you were not told to trust (you trust audit-1)',
      );
      const checked = await verify('resigned.json', resigned, '--accept-untrusted-head', '--against-history');
      expect(checked.code).toBe(1);
      expect(checked.stderr).toMatch(
        /not verified against history: event #\d+ \(tool_call in chain .*\): history recorded something else at event \d+ of run .*: the export's tool result was rewritten/,
      );
    });
  }, 300_000);
});
