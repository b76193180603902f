/**
 * Signed decisions through the HTTP service and its page in headless Chromium: the service signs
 * for the identity a token proved with its own key, passes a caller's own signature on as it is,
 * and the page signs with a key the approver holds in the browser (WebCrypto Ed25519).
 */
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium, SEARCHED } from '../helpers/chromium';
import { keys, signedTeam } from '../helpers/signing';
import { useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { TOKENS, withService } from './service';

const server = useTemporalServer();
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let browser: Browser;
beforeAll(async () => {
  const executablePath = process.env.BATON_CHROMIUM ?? findChromium();
  if (!executablePath)
    throw new Error(`no Chromium for the page tests: ${process.env.BATON_CHROMIUM_PROBLEM ?? `none at ${SEARCHED}`}`);
  browser = await chromium.launch({ executablePath, args: ARGS });
});
afterAll(async () => {
  await browser?.close();
});

describe('signed decisions through the HTTP service', () => {
  it('are signed by the service for the token it checked, or in the browser with the approver’s own key', async () => {
    await withService(
      server.env,
      signedTeam(),
      async ({ service, call, baton }) => {
        const { workflowId } = (
          await call('POST', '/v1/runs', { token: TOKENS.ops, body: { agent: 'desk', input: 'pay bob' } })
        ).body;
        const listed = async () =>
          (await call('GET', '/v1/approvals', { token: TOKENS.bob })).body.approvals as {
            handoffId: string;
            to: string;
            requireSignature?: boolean;
          }[];
        const [payout] = await waitFor(listed, (a) => a.length === 1);
        expect(payout).toMatchObject({ to: 'tool:payout', requireSignature: true });
        const path = `/v1/runs/${workflowId}/approvals/${payout!.handoffId}`;

        // A caller's own signature is sent as it is: a bad one is refused with the chain's reason.
        const forged = await call('POST', path, {
          token: TOKENS.bob,
          body: { decision: 'approve', signature: 'e30.e30.AAAA' },
        });
        expect(forged).toMatchObject({
          status: 409,
          body: { detail: expect.stringContaining("the signature's header must be") },
        });
        // Without one, the service signs for the identity bob's token proved.
        const paid = await call('POST', path, { token: TOKENS.bob, body: { decision: 'approve', comment: 'ok' } });
        expect(paid.status).toBe(200);
        expect(paid.body).toMatchObject({
          approver: 'bob',
          identity: { method: 'token', kid: 'service-1', issuer: 'baton:static-tokens', subject: 'bob' },
        });

        const errors: string[] = [];
        const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
        page.on('pageerror', (e) => errors.push(e.message));
        page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
        await page.goto(`${service.url}/`);
        await page.getByLabel('Access token').fill(TOKENS.alice);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.locator('details.signing summary').click();
        await page.getByLabel('Private key (JWK)').fill(JSON.stringify(keys.alice.jwk));
        await page.getByRole('button', { name: 'Import key' }).click();
        await expect.poll(() => page.locator('.key-status').textContent()).toBe('alice-1 (held in this browser)');
        expect(await page.locator('.key-entry').textContent()).toContain(`"publicKey":"${keys.alice.publicKey}"`);

        const card = page.locator('.card', { hasText: 'vault' });
        await card.waitFor();
        expect(await card.textContent()).toContain('needs a signed decision');
        await card.getByLabel('Comment').fill('signed in the browser');
        await card.getByRole('button', { name: 'Approve' }).click();
        await expect
          .poll(() => page.locator('#toast').textContent())
          .toContain('Approved desk → vault, signed with alice-1');
        expect((await baton.getRun(workflowId).result()).output).toBe('vault opened');

        const audit = (await call('GET', `/v1/runs/${workflowId}/audit`, { token: TOKENS.viewer })).body;
        const decided = audit.events.filter((e: { kind: string }) => e.kind === 'approval_decided');
        expect(decided.map((e: { identity: unknown }) => e.identity)).toEqual([
          { method: 'token', kid: 'service-1', keySource: 'team', issuer: 'baton:static-tokens', subject: 'bob' },
          { method: 'signed', kid: 'alice-1', keySource: 'team' },
        ]);
        expect(decided[1]).toMatchObject({
          approver: 'alice',
          comment: 'signed in the browser',
          signature: expect.stringMatching(/^eyJ/),
        });
        expect(errors).toEqual([]);
        await page.close();
      },
      { service: { signer: keys.service.signer } },
    );
  });
});
