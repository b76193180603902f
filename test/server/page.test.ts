/** The approvals page end to end in headless Chromium: sign in, the live inbox, approve with the keyboard, the run page completing. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Team } from '../../src';
import { evalCases } from '../../src/eval/cases';
import { runEval } from '../../src/eval/run';
import { scriptedAgent } from '../helpers/agents';
import { findChromium, SEARCHED } from '../helpers/chromium';
import { useTemporalServer } from '../helpers/temporal';
import { TOKENS, withService } from './service';
import { refundTeam, toolApprovalTeam } from './team';

const server = useTemporalServer();
const SHOTS = path.join(__dirname, 'screenshots');
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
  fs.mkdirSync(SHOTS, { recursive: true });
  // test/helpers/globalSetup.ts finds Chromium, or installs it, before the tests start.
  const executablePath = process.env.BATON_CHROMIUM ?? findChromium();
  if (!executablePath)
    throw new Error(`no Chromium for the page tests: ${process.env.BATON_CHROMIUM_PROBLEM ?? `none at ${SEARCHED}`}`);
  browser = await chromium.launch({ executablePath, args: ARGS });
});
afterAll(async () => {
  await browser?.close();
});

async function signIn(page: Page, url: string, token: string) {
  await page.goto(url);
  await page.getByLabel('Access token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe('the approvals page', () => {
  it('shows a waiting handoff live, approves it from the keyboard, and shows the chain complete', async () => {
    await withService(server.env, refundTeam(), async ({ service, call }) => {
      const errors: string[] = [];
      const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
      const inbox = await context.newPage();
      inbox.on('pageerror', (e) => errors.push(e.message));
      inbox.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
      await signIn(inbox, `${service.url}/`, TOKENS.alice);
      await expect.poll(() => inbox.locator('#who').textContent()).toContain('alice · approver');
      await inbox.locator('.live.on').waitFor();
      await expect.poll(() => inbox.getByText('Nothing waits for approval.').isVisible()).toBe(true);

      const { workflowId } = (
        await call('POST', '/v1/runs', {
          token: TOKENS.ops,
          body: { agent: 'triage', input: 'The teapot of order 42 arrived broken.' },
        })
      ).body;
      const card = inbox.locator('.card', { hasText: 'Refund order 42' });
      await card.waitFor();
      expect(await card.locator('.route').textContent()).toBe('triage→refunds');
      expect(await card.textContent()).toContain('approvers: alice');
      // The chain so far comes with the next reading of what waits when its workers are slow to answer.
      await expect.poll(() => card.textContent()).toContain('No handoffs yet');
      await inbox.screenshot({ path: path.join(SHOTS, 'inbox.png'), fullPage: true });

      const phone = await browser.newContext({
        viewport: { width: 390, height: 844 },
        deviceScaleFactor: 2,
        isMobile: true,
        hasTouch: true,
      });
      const small = await phone.newPage();
      await signIn(small, `${service.url}/`, TOKENS.alice);
      await small.locator('.card').waitFor();
      const overflow = await small.evaluate(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      );
      expect(overflow).toBe(0);
      await small.screenshot({ path: path.join(SHOTS, 'inbox-phone.png'), fullPage: true });
      await phone.close();

      const run = await context.newPage();
      run.on('pageerror', (e) => errors.push(e.message));
      run.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
      // A new tab has its own session: the deep link asks for the token, then shows the run.
      await signIn(run, `${service.url}/runs/${encodeURIComponent(workflowId)}`, TOKENS.viewer);
      await expect.poll(() => run.locator('.badge').textContent()).toBe('awaiting approval');
      await run.locator('.live.on').waitFor();
      await run.screenshot({ path: path.join(SHOTS, 'run-waiting.png'), fullPage: true });

      await inbox.bringToFront();
      await inbox.keyboard.press('j');
      expect(await inbox.evaluate("document.activeElement.classList.contains('card')")).toBe(true);
      await card.getByLabel('Comment').fill('Broken on arrival: refund it.');
      await inbox.keyboard.press('Tab');
      expect(await inbox.evaluate('document.activeElement.textContent')).toBe('Approve');
      await inbox.keyboard.press('Enter');
      await expect.poll(() => inbox.locator('#toast').textContent()).toContain('Approved triage → refunds');
      await expect.poll(() => inbox.getByText('Nothing waits for approval.').isVisible()).toBe(true);

      await run.bringToFront();
      await expect.poll(() => run.locator('.badge').textContent(), { timeout: 20_000 }).toBe('completed');
      await expect.poll(() => run.locator('pre.output').textContent()).toBe('Refunded order 42.');
      await expect.poll(() => run.locator('.live').textContent()).toBe('chain ended');
      expect(await run.locator('.facts').textContent()).toContain('1 handoff3 model calls1 tool call');
      expect(await run.locator('.flow svg text', { hasText: '#1 · alice' }).count()).toBe(1);
      const timeline = await run.locator('.timeline li').allTextContents();
      expect(timeline.some((line) => line.includes('approved by "alice" (claimed) via update'))).toBe(true);
      expect(timeline.some((line) => line.includes('lookupOrder'))).toBe(true);
      await run.screenshot({ path: path.join(SHOTS, 'run-completed.png'), fullPage: true });
      await run.emulateMedia({ colorScheme: 'dark' });
      await run.screenshot({ path: path.join(SHOTS, 'run-completed-dark.png'), fullPage: true });

      const audit = await call('GET', `/v1/runs/${workflowId}/audit`, { token: TOKENS.viewer });
      const decided = audit.body.events.find((e: { kind: string }) => e.kind === 'approval_decided');
      expect(decided).toMatchObject({ approver: 'alice', comment: 'Broken on arrival: refund it.' });
      expect(errors).toEqual([]);
      await context.close();
    });
  });

  it('shows a tool call with its arguments, keeps invalid JSON from being sent, and approves the call with the arguments as edited', async () => {
    await withService(server.env, toolApprovalTeam(), async ({ service, call, baton }) => {
      const errors: string[] = [];
      const posts: string[] = [];
      const page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
      page.on('request', (r) => void (r.method() === 'POST' && posts.push(r.postData() ?? '')));
      await signIn(page, `${service.url}/`, TOKENS.alice);
      await page.locator('.live.on').waitFor();

      // The same request twice, each a chain of its own: each with a key of its own.
      let starts = 0;
      const start = async () =>
        (
          await call('POST', '/v1/runs', {
            token: TOKENS.ops,
            body: { agent: 'refunds', input: 'Refund order A1.' },
            headers: { 'idempotency-key': `page-${Date.now()}-${++starts}` },
          })
        ).body.workflowId as string;
      const edited = await start();
      const card = page.locator('.card', { hasText: 'issueRefund' });
      await card.waitFor();
      expect(await card.locator('.route').textContent()).toBe('refunds→tool issueRefund');
      // A card can show before the approvals stream gives its chain's request; it is labelled again when it does.
      await expect
        .poll(() => card.getAttribute('aria-label'))
        .toMatch(/^Tool call issueRefund by refunds in chain \S+ \(request: Refund order A1\.\), asked /);
      const args = card.getByLabel('Arguments (JSON; edit them to run the call with yours)');
      expect(JSON.parse(await args.inputValue())).toEqual({ orderId: 'A1', amount: 250 });
      await page.screenshot({ path: path.join(SHOTS, 'inbox-tool-call.png'), fullPage: true });

      await args.fill('{"orderId": "A1", "amount": 200');
      await card.getByRole('button', { name: 'Approve' }).click();
      await expect
        .poll(() => card.locator('.args-problem').textContent())
        .toMatch(/^The arguments are not valid JSON: /);
      await args.fill('[200]');
      await card.getByRole('button', { name: 'Approve' }).click();
      await expect
        .poll(() => card.locator('.args-problem').textContent())
        .toBe('The arguments must be a JSON object, like {"orderId": "A1"}.');
      await page.screenshot({ path: path.join(SHOTS, 'inbox-tool-call-invalid.png'), fullPage: true });
      expect(posts).toEqual([]);

      await args.fill('{"orderId": "A1", "amount": 200}');
      await card.getByRole('button', { name: 'Approve' }).click();
      await expect
        .poll(() => page.locator('#toast').textContent())
        .toContain('Approved refunds → tool issueRefund with edited arguments');
      expect(posts.map((p) => JSON.parse(p))).toEqual([
        { decision: 'approve', callHash: expect.any(String), arguments: { orderId: 'A1', amount: 200 } },
      ]);
      await baton.getRun(edited).result();
      const decided = (await baton.audit(edited)).events.find((e) => e.kind === 'approval_decided');
      expect(decided).toMatchObject({
        approver: 'alice',
        tool: 'issueRefund',
        editedArguments: '{"orderId":"A1","amount":200}',
      });

      // Arguments left as they were are not sent: the model's call runs.
      const unchanged = await start();
      await card.waitFor();
      await card.getByRole('button', { name: 'Approve' }).click();
      await expect.poll(() => posts.length).toBe(2);
      expect(JSON.parse(posts[1]!)).toEqual({ decision: 'approve', callHash: expect.any(String) });
      await baton.getRun(unchanged).result();
      expect((await baton.audit(unchanged)).events.find((e) => e.kind === 'approval_decided')).not.toHaveProperty(
        'editedArguments',
      );
      expect(errors).toEqual([]);
      await page.close();
    });
  });

  it('refuses a wrong token and shows the sign-in again', async () => {
    await withService(server.env, refundTeam(), async ({ service }) => {
      const page = await browser.newPage();
      await signIn(page, `${service.url}/`, 'not-a-real-token');
      await expect.poll(() => page.locator('.problem').first().textContent()).toContain('did not accept your token');
      await page.screenshot({ path: path.join(SHOTS, 'sign-in-refused.png') });
      await page.close();
    });
  });

  it('shows an eval report and an experiment, stops the experiment with a button, and saves a chain into a dataset from its page', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-page-datasets-'));
    const team = () =>
      new Team([
        scriptedAgent('triage', [{ handoff: { to: 'billing', message: 'a bill' } }]),
        scriptedAgent('billing', [{ text: 'paid' }]),
      ]);
    await withService(
      server.env,
      team(),
      async ({ service, baton }) => {
        const chain = await baton.run('triage', 'my bill');
        const report = await runEval({
          client: baton.client,
          connection: server.env.nativeConnection,
          team: team(),
          cases: await evalCases(baton.client, { ids: [chain.workflowId] }),
          pollMs: 100,
        });
        await baton.experiments.start({ id: 'page-exp', variants: [{ name: 'a' }, { name: 'b' }] });
        await (await baton.start('triage', 'my bill', { experiment: 'page-exp' })).result();
        const errors: string[] = [];
        const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
        const page = await context.newPage();
        page.on('pageerror', (e) => errors.push(e.message));
        page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));

        await signIn(page, `${service.url}/evals/${encodeURIComponent(report.summary.evalId)}`, TOKENS.admin);
        const row = page.locator('table.report tbody tr').first();
        await row.waitFor();
        expect(await row.textContent()).toContain('triage → billing');
        expect(await page.locator('main').textContent()).toContain('Threshold holds (regressions<=0)');
        await page.screenshot({ path: path.join(SHOTS, 'eval.png'), fullPage: true });

        await page.goto(`${service.url}/experiments/page-exp`);
        await page.getByRole('button', { name: 'Stop: all to b' }).click();
        await expect.poll(() => page.locator('.facts').first().textContent()).toContain('stopped: new chains go to b');
        expect(await page.locator('main').textContent()).toContain(
          'Nothing to compare yet: a variant has no ended chains.',
        );
        expect(await page.locator('main').textContent()).not.toContain('null');
        expect((await baton.experiments.get('page-exp')).stoppedBy).toBe('admin');
        await page.screenshot({ path: path.join(SHOTS, 'experiment.png'), fullPage: true });

        await page.goto(`${service.url}/runs/${encodeURIComponent(chain.workflowId)}`);
        await page.getByLabel('Dataset').fill('page');
        await page.getByRole('button', { name: 'Save as good' }).click();
        await expect.poll(() => page.locator('#toast').textContent()).toBe('Saved as good to page, line 1');
        expect(JSON.parse(fs.readFileSync(path.join(dir, 'page.jsonl'), 'utf8'))).toMatchObject({
          chainId: chain.workflowId,
          verdict: 'good',
        });
        expect(errors).toEqual([]);
        await context.close();
      },
      { service: { datasets: { dir } } },
    );
  }, 120_000);
});
