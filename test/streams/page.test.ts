/** The run page in headless Chromium: the answer shows as it forms, then the recorded answer replaces it. */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium, SEARCHED } from '../helpers/chromium';
import { reply, startOpenAIServer } from '../helpers/openaiServer';
import { useTemporalServer } from '../helpers/temporal';
import { TOKENS, withService } from '../server/service';
import { streamTeam } from './fixtures/team';

const server = useTemporalServer();
const SHOTS = path.join(__dirname, '../server/screenshots');
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
let fake: Awaited<ReturnType<typeof startOpenAIServer>>;
beforeAll(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  const executablePath = process.env.BATON_CHROMIUM ?? findChromium();
  if (!executablePath)
    throw new Error(`no Chromium for the page tests: ${process.env.BATON_CHROMIUM_PROBLEM ?? `none at ${SEARCHED}`}`);
  [browser, fake] = await Promise.all([chromium.launch({ executablePath, args: ARGS }), startOpenAIServer()]);
});
afterAll(async () => {
  await browser?.close();
  await fake?.close();
});

describe('the run page', () => {
  it('shows the answer forming while the model writes it, then the recorded answer', async () => {
    const answer = Array.from({ length: 60 }, (_, i) => `otter${i}`).join(' ');
    fake.replies.push(reply.text(answer, { chunkDelayMs: 30 }));
    await withService(server.env, streamTeam(fake.url), async ({ service, baton }) => {
      const run = await baton.start('expert', 'Tell me about otters');
      const page = await (await browser.newContext({ viewport: { width: 1100, height: 800 } })).newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${service.url}/runs/${encodeURIComponent(run.workflowId)}`);
      await page.getByLabel('Access token').fill(TOKENS.viewer);
      await page.getByRole('button', { name: 'Sign in' }).click();
      const forming = page.locator('.forming-answer pre');
      // Part of the answer is on the page while the chain still runs.
      await expect
        .poll(async () => ((await forming.isVisible()) ? ((await forming.textContent()) ?? '') : '').length, {
          timeout: 30_000,
        })
        .toBeGreaterThan(20);
      const partial = (await forming.textContent()) ?? '';
      expect(answer.startsWith(partial)).toBe(true);
      expect(partial.length).toBeLessThan(answer.length);
      expect(await page.locator('.forming-answer h2').textContent()).toContain('expert');
      await page.screenshot({ path: path.join(SHOTS, 'run-forming.png'), fullPage: true });
      await page.locator('pre.output', { hasText: answer }).waitFor({ timeout: 30_000 });
      await expect.poll(() => page.locator('.forming-answer').isHidden()).toBe(true);
      expect(errors).toEqual([]);
    });
  });
});
