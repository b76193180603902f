/**
 * The approvals and run pages in headless Chromium, as an approver tells chains apart: each card
 * shows the chain's request, its id (a link to its page) and who started it; why a viewer cannot
 * decide; the run page on a 390 px phone; a specialist's chain linked from the flow.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delegationScenario } from '../histories/auditScenarios';
import { useTemporalServer } from '../helpers/temporal';
import { TOKENS, withService } from './service';
import { refundTeam } from './team';

const server = useTemporalServer();
const SHOTS = path.join(__dirname, 'screenshots');
const CHROMIUM = '/usr/bin/chromium';
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
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

let browser: Browser;
beforeAll(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
});
afterAll(async () => {
  await browser?.close();
});

async function signIn(page: Page, url: string, token: string) {
  await page.goto(url);
  await page.getByLabel('Access token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

async function shoot(page: Page, name: string) {
  await page.screenshot({ path: path.join(SHOTS, name), fullPage: true });
}

/** How far the page is wider than the screen, in CSS pixels. */
const overflow = (page: Page) =>
  page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth') as Promise<number>;

/**
 * Where each timeline row's time text ends and its agent's text starts (a grid cell's box stays in
 * its column while its text runs over, so the texts themselves are measured).
 */
const TIMELINE_TEXTS = `[...document.querySelectorAll('.timeline li')].map((li) => {
  const box = (el) => { const range = document.createRange(); range.selectNodeContents(el); return range.getBoundingClientRect(); };
  const time = box(li.querySelector('time'));
  const actor = box(li.querySelector('.actor'));
  return { time: time.right, actor: actor.left, sameRow: Math.abs(time.top - actor.top) < 4 };
})`;
const FLOW_BOX = `(() => { const el = document.querySelector('.flow'); return { box: el.getBoundingClientRect().right, svg: el.querySelector('svg').getBoundingClientRect().right, scrolls: el.scrollWidth > el.clientWidth }; })()`;

const REQUESTS = [
  'The teapot of order 42 arrived broken, please refund it.',
  'Order 42: I was charged twice for the same teapot.',
];

describe('approval cards tell chains apart', () => {
  it("shows each chain's request, id and starter on a 390 px phone, and tells a viewer why they cannot decide", async () => {
    await withService(server.env, refundTeam(), async ({ service, call }) => {
      const ids: string[] = [];
      for (const input of REQUESTS)
        ids.push(
          (await call('POST', '/v1/runs', { token: TOKENS.ops, body: { agent: 'triage', input } })).body.workflowId,
        );
      const phone = await browser.newContext(PHONE);
      const page = await phone.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await signIn(page, `${service.url}/`, TOKENS.alice);
      await expect.poll(() => page.locator('.card').count(), { timeout: 20_000 }).toBe(2);
      for (const [i, id] of ids.entries()) {
        const card = page.locator('.card', { hasText: REQUESTS[i]! });
        // Both read "triage → refunds": the request and the chain's id tell them apart.
        expect(await card.locator('.route').textContent()).toBe('triage→refunds');
        expect(await card.locator('.request').textContent()).toBe(`Request to triage: ${REQUESTS[i]}`);
        expect(await card.locator('.which a').getAttribute('href')).toBe(`/runs/${encodeURIComponent(id)}`);
        expect(await card.locator('.which').textContent()).toMatch(/ · started \d+ s ago by ops$/);
        expect(await card.getAttribute('aria-label')).toContain(`in chain ${id} (request: ${REQUESTS[i]})`);
      }
      expect(await overflow(page)).toBe(0);
      await shoot(page, 'approvals-390.png');

      // A viewer, reading everyone's (nothing waits for a viewer), sees the cards and why the buttons are off: the role, not the approvers.
      const viewer = await phone.newPage();
      await signIn(viewer, `${service.url}/?for=all`, TOKENS.viewer);
      await expect.poll(() => viewer.locator('.card').count(), { timeout: 20_000 }).toBe(2);
      expect(await viewer.locator('.card .why-not').first().textContent()).toBe(
        'You cannot decide approvals: you are signed in as viewer with the role viewer, and deciding needs approver or admin.',
      );
      await shoot(viewer, 'approvals-390-viewer.png');
      const bob = await phone.newPage();
      // Bob reads everyone's: only alice decides these, so none waits for him.
      await signIn(bob, `${service.url}/?for=all`, TOKENS.bob);
      await expect.poll(() => bob.locator('.card').count(), { timeout: 20_000 }).toBe(2);
      expect(await bob.locator('.card .why-not').first().textContent()).toBe(
        'Only alice decides this; you are signed in as bob.',
      );
      expect(errors).toEqual([]);
      await phone.close();
    });
  });
});

describe('the run page on a 390 px phone', () => {
  it('keeps times clear of agent names, fits the flow to the screen, and shows the request on the waiting card', async () => {
    await withService(server.env, refundTeam(), async ({ service, call }) => {
      const { workflowId } = (
        await call('POST', '/v1/runs', { token: TOKENS.ops, body: { agent: 'triage', input: REQUESTS[0] } })
      ).body;
      const phone = await browser.newContext(PHONE);
      const page = await phone.newPage();
      await signIn(page, `${service.url}/runs/${encodeURIComponent(workflowId)}`, TOKENS.alice);
      const card = page.locator('.card');
      await card.waitFor({ timeout: 20_000 });
      expect(await card.locator('.request').textContent()).toBe(`Request to triage: ${REQUESTS[0]}`);
      expect(await card.locator('.which').textContent()).toMatch(
        new RegExp(`^Chain ${workflowId} · started \\d+ s ago by ops$`),
      );
      expect(await page.locator('main > p.request').textContent()).toBe(`Request to triage from ops: ${REQUESTS[0]}`);
      await card.getByRole('button', { name: 'Approve' }).click();
      await expect.poll(() => page.locator('.badge').textContent(), { timeout: 20_000 }).toBe('completed');
      await expect.poll(() => page.locator('.live').textContent()).toBe('chain ended');

      const rows = (await page.evaluate(TIMELINE_TEXTS)) as { time: number; actor: number; sameRow: boolean }[];
      expect(rows.length).toBeGreaterThan(5);
      for (const row of rows) if (row.sameRow) expect(row.time).toBeLessThanOrEqual(row.actor);
      const flow = (await page.evaluate(FLOW_BOX)) as { box: number; svg: number; scrolls: boolean };
      expect(flow.svg).toBeLessThanOrEqual(flow.box);
      expect(flow.scrolls).toBe(false);
      expect(await overflow(page)).toBe(0);
      await shoot(page, 'run-390.png');
      await phone.close();
    });
  });
});

describe("a specialist's chain on the run page", () => {
  it('draws the specialist in the flow, linking to its own page, and links it from the timeline', async () => {
    await withService(server.env, delegationScenario.team(), async ({ service, call, baton }) => {
      const { workflowId } = (
        await call('POST', '/v1/runs', { token: TOKENS.ops, body: { agent: 'triage', input: 'where is order 42?' } })
      ).body;
      await baton.getRun(workflowId).result();
      const child = `${workflowId}/orders-1.1`;
      const page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
      await signIn(page, `${service.url}/runs/${encodeURIComponent(workflowId)}`, TOKENS.viewer);
      await expect.poll(() => page.locator('.badge').textContent(), { timeout: 20_000 }).toBe('completed');
      const link = page.locator('.flow a.chain-link');
      expect(await link.getAttribute('href')).toBe(`/runs/${encodeURIComponent(child)}`);
      expect(await link.locator('text').textContent()).toBe('orders');
      expect(await page.locator('.flow svg text', { hasText: 'delegates · answered' }).count()).toBe(1);
      expect(await page.locator('.timeline a', { hasText: child }).count()).toBe(1);
      await shoot(page, 'run-delegation.png');
      await link.click();
      await expect.poll(() => page.locator('.chain-id').textContent(), { timeout: 20_000 }).toBe(child);
      await expect.poll(() => page.locator('.badge').textContent()).toBe('completed');
      expect(await page.locator('p.request').textContent()).toContain(`specialist of ${workflowId}`);
      await page.close();
    });
  });
});
