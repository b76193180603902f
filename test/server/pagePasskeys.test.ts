/**
 * Decisions signed with a passkey on the approvals page, in headless Chromium with a virtual
 * authenticator (CDP `WebAuthn.addVirtualAuthenticator`), on a real Temporal server and worker: the
 * page registers a passkey and shows its entry, signs a decision with it and the chain acts on it; an
 * assertion asked for by an origin the key does not allow, the same assertion sent again for
 * another chain, and a passkey the chain does not trust are refused with their reason, on the record,
 * and the chain keeps waiting.
 */
import { describe, expect, it } from 'vitest';
import { Team } from '../../src';
import type { ApproverKey } from '../../src/client/signing';
import { verifyAuditExport } from '../../src/audit/verifyExport';
import { exportAudit } from '../../src/audit/export';
import { scriptedAgent as agent } from '../helpers/agents';
import { useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { useBrowser } from './browser';
import { LOCALHOST_ARGS, passkeyPage, registerPasskey } from './passkeyPage';
import { TOKENS, withService } from './service';

const server = useTemporalServer();
// WebAuthn takes `localhost` as a relying party id, not an IP address: the page is opened at localhost.
const browser = useBrowser(LOCALHOST_ARGS);

const team = () =>
  new Team(
    [
      agent('desk', [{ handoff: { to: 'vault', message: 'open the vault' } }], { handoffs: ['vault'] }),
      agent('vault', [{ text: 'vault opened' }], { approval: { approvers: ['alice'], requireSignature: true } }),
    ],
    { name: 'passkeys' },
  );

describe('passkeys on the approvals page', () => {
  it('sign decisions the chain acts on; a wrong origin, a replayed assertion and an untrusted passkey are refused and the chain waits', async () => {
    await withService(server.env, team(), async ({ service, baton, call }) => {
      const { page, origin, errors } = await passkeyPage(browser(), service.url, TOKENS.alice);
      const entry = await registerPasskey(page);
      expect(entry).toMatchObject({ approvers: ['alice'], webauthn: { rpId: 'localhost', origins: [origin] } });
      expect(await page.locator('.passkey-status').textContent()).toBe(`${entry.kid} (registered in this browser)`);

      const waitingIn = async (keys: ApproverKey[]) => {
        const run = await baton.start('desk', 'open it', { approverKeys: keys });
        const [w] = await waitFor(
          () => run.pendingApprovals(),
          (p) => p.length === 1,
        );
        return { run, handoffId: w!.handoffId };
      };
      const approveOnPage = async (workflowId: string) => {
        const card = page.locator(`.card[data-key^="${workflowId}/"]`);
        await card.waitFor();
        await page.evaluate('document.getElementById("toast").textContent = ""');
        await card.getByRole('button', { name: 'Approve' }).click();
        return waitFor(
          () => page.locator('#toast').textContent(),
          (t) => !!t && (t.includes('Approved') || t.includes('Could not')),
        );
      };
      const refusals = async (workflowId: string, n: number) =>
        (
          await waitFor(
            () => baton.audit(workflowId),
            (a) => a.events.filter((e) => e.kind === 'decision_refused').length >= n,
          )
        ).events.filter((e) => e.kind === 'decision_refused');

      // Signed with the passkey the run trusts: the chain acts on it, and records how.
      const a = await waitingIn([entry]);
      expect(await approveOnPage(a.run.workflowId)).toContain(`signed with ${entry.kid}`);
      expect((await a.run.result()).output).toBe('vault opened');
      const auditA = await baton.audit(a.run.workflowId);
      const decided = auditA.events.find((e) => e.kind === 'approval_decided') as
        { identity?: unknown; signature?: string } | undefined;
      expect(decided?.identity).toEqual({
        method: 'signed',
        kid: entry.kid,
        keySource: 'run',
        passkey: { origin, signCount: expect.any(Number) },
      });
      expect(decided?.signature?.split('.')).toHaveLength(5);
      // The exported audit verifies it; a tampered copy does not.
      const exported = exportAudit(auditA);
      expect(verifyAuditExport(exported, { acceptUntrustedHead: true })).toMatchObject({ ok: true });
      const tampered = JSON.parse(
        JSON.stringify(exported).replace(
          `"signCount":${(decided!.identity as { passkey: { signCount: number } }).passkey.signCount}`,
          '"signCount":999',
        ),
      ) as typeof exported;
      expect(verifyAuditExport(tampered, { acceptUntrustedHead: true })).toMatchObject({ ok: false });

      // The same assertion sent again, for another chain: refused on the record, the chain waits.
      const b = await waitingIn([entry]);
      await b.run.handle.signal('approveHandoff', {
        handoffId: b.handoffId,
        approver: 'alice',
        signature: decided!.signature,
      });
      expect((await refusals(b.run.workflowId, 1))[0]).toMatchObject({
        approver: 'alice',
        via: 'signal',
        reason: expect.stringContaining('the signature is for chain'),
      });
      // A passkey the chain was told to trust only from another origin: refused, on the record too when signalled.
      const c = await waitingIn([
        { ...entry, webauthn: { rpId: 'localhost', origins: ['https://approvals.example.com'] } },
      ]);
      const wrongOrigin = await approveOnPage(c.run.workflowId);
      expect(wrongOrigin).toContain(`asked for by "${origin}", which key`);
      expect(wrongOrigin).toContain('allowed: https://approvals.example.com');
      // A new passkey the chains do not trust: refused as an unknown key.
      await page.getByRole('button', { name: 'Forget passkey' }).click();
      const other = await registerPasskey(page);
      expect(other.kid).not.toBe(entry.kid);
      const unknown = await approveOnPage(b.run.workflowId);
      expect(unknown).toContain(`no key "${other.kid}" is trusted by this chain`);
      for (const w of [b, c]) expect(await w.run.pendingApprovals()).toHaveLength(1);

      // Registered for bob, not alice: refused as the wrong approver.
      const d = await waitingIn([{ ...other, approvers: ['bob'] }]);
      const wrongApprover = await approveOnPage(d.run.workflowId);
      expect(wrongApprover).toContain(`signs for bob, not for alice`);
      expect(await d.run.pendingApprovals()).toHaveLength(1);
      expect(errors).toEqual([]);
      void call;
      await page.close();
    });
  });
});
