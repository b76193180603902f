/**
 * The approvals page and the run page as people of every ability meet them, in Chromium: axe-core
 * finds no violations at a phone's width and a desktop's, light and dark; a decision from the
 * keyboard takes the same key twice, so a stray key decides nothing.
 */
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { useTemporalServer } from '../helpers/temporal';
import { signIn, useBrowser } from './browser';
import { TOKENS, withService } from './service';
import { toolApprovalTeam } from './team';

const server = useTemporalServer();
const AXE = createRequire(__filename).resolve('axe-core/axe.min.js');
const browser = useBrowser();

/** axe-core's violations on the page as it stands: rule, impact, and the elements. */
async function violations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE });
  const found = (await page.evaluate('axe.run(document, { resultTypes: ["violations"] })')) as {
    violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
  };
  return found.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

describe('the pages, for everyone', () => {
  it(
    'have no axe-core violations at 390 px and 1440 px, light and dark, with a tool call waiting',
    { timeout: 240_000 },
    async () => {
      await withService(server.env, toolApprovalTeam(), async ({ service, call }) => {
        const { workflowId } = (
          await call('POST', '/v1/runs', { token: TOKENS.ops, body: { agent: 'refunds', input: 'Refund order A1.' } })
        ).body as { workflowId: string };
        const found: Record<string, string[]> = {};
        for (const width of [390, 1440]) {
          for (const colorScheme of ['light', 'dark'] as const) {
            // axe-core is injected as a script of the test's own, which the page's policy would refuse.
            const context = await browser().newContext({
              viewport: { width, height: 900 },
              colorScheme,
              bypassCSP: true,
            });
            const page = await context.newPage();
            await signIn(page, `${service.url}/`, TOKENS.alice);
            await page.locator(`.card[data-key^="${workflowId}/"]`).waitFor();
            found[`inbox ${width} ${colorScheme}`] = await violations(page);
            await page.goto(`${service.url}/runs/${encodeURIComponent(workflowId)}`);
            await page.locator('.flow svg').waitFor();
            found[`run ${width} ${colorScheme}`] = await violations(page);
            await context.close();
          }
        }
        expect(found).toEqual(Object.fromEntries(Object.keys(found).map((k) => [k, []])));
      });
    },
  );

  it('decides from the keyboard only on the second press of the same key, and says so after the first', async () => {
    await withService(server.env, toolApprovalTeam(), async ({ service, call }) => {
      const page = await browser().newPage({ viewport: { width: 1100, height: 800 } });
      await signIn(page, `${service.url}/`, TOKENS.alice);
      const { workflowId } = (
        await call('POST', '/v1/runs', { token: TOKENS.ops, body: { agent: 'refunds', input: 'Refund order A1.' } })
      ).body as { workflowId: string };
      const card = page.locator(`.card[data-key^="${workflowId}/"]`);
      await card.waitFor();
      await card.focus();
      await page.keyboard.press('a');
      await expect.poll(() => card.locator('.confirm').textContent()).toBe('Press a again to approve.');
      // Another key starts over: r asks for its own second press, and nothing was decided.
      await page.keyboard.press('r');
      await expect.poll(() => card.locator('.confirm').textContent()).toBe('Press r again to reject.');
      await new Promise((r) => setTimeout(r, 500));
      expect(await card.isVisible()).toBe(true);
      await page.keyboard.press('a');
      await page.keyboard.press('a');
      await expect.poll(() => page.locator('#toast').textContent(), { timeout: 15_000 }).toContain('Approved');
      await page.close();
    });
  });
});
