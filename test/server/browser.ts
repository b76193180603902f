/** Chromium for the page tests: launched once per file (found, or installed, by test/helpers/globalSetup.ts), and signing in. */
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { findChromium, SEARCHED } from '../helpers/chromium';

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

/** Launch Chromium (with `extraArgs` besides the usual flags) before the file's tests and close it after them; the returned function gives the browser. */
export function useBrowser(extraArgs: string[] = []): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    const executablePath = process.env.BATON_CHROMIUM ?? findChromium();
    if (!executablePath)
      throw new Error(`no Chromium for the page tests: ${process.env.BATON_CHROMIUM_PROBLEM ?? `none at ${SEARCHED}`}`);
    browser = await chromium.launch({ executablePath, args: [...ARGS, ...extraArgs] });
  });
  afterAll(async () => {
    await browser?.close();
  });
  return () => browser!;
}

/** Open `url` and sign in with `token` on the page's form. */
export async function signIn(page: Page, url: string, token: string): Promise<void> {
  await page.goto(url);
  await page.getByLabel('Access token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
}
