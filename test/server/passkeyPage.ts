/**
 * The approvals page with a passkey, as the passkey page tests use it: a page of Chromium with a
 * virtual authenticator (CDP `WebAuthn.addVirtualAuthenticator`, user presence and verification
 * answered at once), opened at `localhost` (WebAuthn takes it as a relying party id, not an IP
 * address), an approver signed in, and the passkey the page registers.
 */
import type { Browser, Page } from 'playwright-core';
import type { ApproverKey } from '../../src/client/signing';
import { waitFor } from '../helpers/wait';

/** The flag that resolves `localhost` to the service's address, for {@link useBrowser}. */
export const LOCALHOST_ARGS = ['--host-resolver-rules=MAP localhost 127.0.0.1'];

/** A page of the service at `localhost` with a virtual authenticator, signed in with `token`; its origin, and the page errors seen. */
export async function passkeyPage(
  browser: Browser,
  serviceUrl: string,
  token: string,
): Promise<{ page: Page; origin: string; errors: string[] }> {
  const origin = serviceUrl.replace('127.0.0.1', 'localhost').replace(/\/$/, '');
  const errors: string[] = [];
  const page = await browser.newPage();
  page.on('pageerror', (e) => errors.push(e.message));
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  await page.goto(`${origin}/`);
  await page.getByLabel('Access token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('details.passkey summary').click();
  return { page, origin, errors };
}

/** Register a passkey on the page's passkey panel: the approver key entry it shows for the team. */
export async function registerPasskey(page: Page): Promise<ApproverKey> {
  await page.getByRole('button', { name: 'Register a passkey' }).click();
  const text = await waitFor(
    () => page.locator('.passkey-entry').textContent(),
    (t) => !!t && t.includes('{'),
  );
  return JSON.parse(text!.slice(text!.indexOf('{'))) as ApproverKey;
}
