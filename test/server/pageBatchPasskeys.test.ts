/**
 * The inbox's batch bar signing with a passkey, in headless Chromium with a virtual authenticator,
 * on a real Temporal server and worker: one batch action approves two chains, each decision signed
 * by its own assertion over its own digest and recorded as the approver's passkey; in a second
 * batch, a chain whose run trusts that passkey for another approver refuses its decision, shown on
 * its line of the result and on its card, while the other chain of the batch goes on.
 */
import { describe, expect, it } from 'vitest';
import { Team } from '../../src';
import { exportAudit } from '../../src/audit/export';
import { verifyAuditExport } from '../../src/audit/verifyExport';
import type { ApprovalRecord } from '../../src/common/approvals';
import type { ApproverKey } from '../../src/client/signing';
import { scriptedAgent as agent } from '../helpers/agents';
import { useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { useBrowser } from './browser';
import { LOCALHOST_ARGS, passkeyPage, registerPasskey } from './passkeyPage';
import { TOKENS, withService } from './service';

const server = useTemporalServer();
const browser = useBrowser(LOCALHOST_ARGS);

const team = () =>
  new Team(
    [
      agent('desk', [{ handoff: { to: 'vault', message: 'open the vault' } }], { handoffs: ['vault'] }),
      agent('vault', [{ text: 'vault opened' }], { approval: { approvers: ['alice'], requireSignature: true } }),
    ],
    { name: 'batch-passkeys' },
  );

describe('the batch bar with a passkey', () => {
  it(
    'signs each decision of a batch with its own assertion, and shows the refusal of a chain that trusts the passkey for another approver',
    { timeout: 180_000 },
    async () => {
      await withService(server.env, team(), async ({ service, baton }) => {
        const { page, origin, errors } = await passkeyPage(browser(), service.url, TOKENS.alice);
        const entry = await registerPasskey(page);
        const waitingIn = async (keys: ApproverKey[]) => {
          const run = await baton.start('desk', 'open it', { approverKeys: keys });
          await waitFor(
            () => run.pendingApprovals(),
            (p) => p.length === 1,
          );
          await page.locator(`.card[data-key^="${run.workflowId}/"]`).waitFor();
          return run;
        };
        const batch = async (first: string, n: number) => {
          await page.locator(`.card[data-key^="${first}/"]`).getByRole('button', { name: 'Select similar' }).click();
          expect(await page.locator('.batch-summary').textContent()).toBe(`${n} selected: handoff desk → vault`);
          await page.getByRole('button', { name: `Approve ${n}` }).click();
          return expect.poll(() => page.locator('.batch-results [role=status]').textContent(), { timeout: 30_000 });
        };
        const decisionOf = async (workflowId: string) =>
          (await baton.audit(workflowId)).events.find(
            (e) => e.kind === 'approval_decided',
          ) as unknown as ApprovalRecord;

        // One batch action, two chains: each decision is its own assertion, recorded as alice's passkey.
        const [a, b] = [await waitingIn([entry]), await waitingIn([entry])];
        await (await batch(a.workflowId, 2)).toBe('2 of 2 decisions approved.');
        for (const run of [a, b]) {
          expect((await run.result()).output).toBe('vault opened');
          expect(await page.locator(`.outcomes li.applied[data-key^="${run.workflowId}/"]`).textContent()).toContain(
            `, signed with ${entry.kid}`,
          );
          const decided = await decisionOf(run.workflowId);
          expect(decided).toMatchObject({
            approver: 'alice',
            outcome: 'approved',
            identity: {
              method: 'signed',
              kid: entry.kid,
              keySource: 'run',
              passkey: { origin, signCount: expect.any(Number) },
            },
          });
          expect(decided.signature!.split('.')).toHaveLength(5);
          expect(
            verifyAuditExport(exportAudit(await baton.audit(run.workflowId)), { acceptUntrustedHead: true }),
          ).toMatchObject({ ok: true, signed: 1, keys: [entry.kid] });
        }
        // Two assertions, not one reused: each signed its own decision's digest, the counter going forward.
        const [da, db] = [await decisionOf(a.workflowId), await decisionOf(b.workflowId)];
        expect(da.signature).not.toBe(db.signature);
        expect(new Set([da.identity!.passkey!.signCount, db.identity!.passkey!.signCount]).size).toBe(2);

        // A chain that trusts this passkey for bob, not alice, beside one that trusts it for alice: the one refused, the other through.
        const [c, d] = [await waitingIn([{ ...entry, approvers: ['bob'] }]), await waitingIn([entry])];
        await (await batch(c.workflowId, 2)).toBe('1 of 2 decisions approved; 1 refused.');
        expect(await page.locator(`.outcomes li.refused[data-key^="${c.workflowId}/"]`).textContent()).toContain(
          'signs for bob, not for alice',
        );
        expect(await page.locator(`.card[data-key^="${c.workflowId}/"] .decide-problem`).textContent()).toMatch(
          /^Not approved in the batch: .*signs for bob, not for alice/,
        );
        expect((await d.result()).output).toBe('vault opened');
        expect(await decisionOf(d.workflowId)).toMatchObject({ identity: { kid: entry.kid, passkey: { origin } } });
        expect(await c.pendingApprovals()).toHaveLength(1);
        expect(errors).toEqual([]);
        await page.close();
      });
    },
  );
});
