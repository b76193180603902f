/**
 * The web chat example (examples/web-chat) in Chromium, end to end on a real Temporal server, its
 * worker a process of its own sharing text through Redis: a customer's refund request, the handoff
 * approved on its card in the chat, the refund above $100 approved by the manager in the inbox
 * (`usePendingApprovals`, `useApprove`), the worker SIGKILLed while the answer is written and the
 * page reloaded meanwhile (`useChat`'s resume) — and the chat ends with exactly the answer the
 * conversation's history records, the refund paid once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Baton } from '../../src/client/baton';
import { RedisStreams } from '../../src/streams/redis';
import { RefundLedger } from '../../examples/support/ledger';
import { buildWebChat } from '../../examples/web-chat/build';
import { serveWebChat } from '../../examples/web-chat/server';
import { MANAGER, team } from '../../examples/web-chat/team';
import { startRedis, type RedisServer } from '../helpers/redis';
import { taskQueue, useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { useBrowser } from '../server/browser';
import { TYPESCRIPT } from '../helpers/typescript';

const server = useTemporalServer();
const browser = useBrowser();
const ROOT = path.resolve(__dirname, '../..');
const TOKENS = { alice: 'web-chat-alice-token', manager: 'web-chat-manager-token' };
const REQUEST = 'Please refund order 1077, the espresso machine stopped working.';
/** Slow enough that the answer is mid-way when the test looks. */
const WORD_MS = 300;

let dist: string;
let redis: RedisServer;
let dataDir: string;
beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-web-chat-test-'));
  [dist, redis] = await Promise.all([buildWebChat(), startRedis()]);
}, 180_000);
afterAll(async () => {
  await redis?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The example's worker as a process of its own; resolves once it polls. */
async function startWorker(queue: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...TYPESCRIPT, path.join(ROOT, 'examples/web-chat/worker.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: server.env.address,
      BATON_TASK_QUEUE: queue,
      BATON_STREAMS_URL: redis.url,
      BATON_EXAMPLE_WORD_MS: String(WORD_MS),
      BATON_EXAMPLE_DATA: dataDir,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (b: Buffer) => b.toString().includes('ready') && resolve());
    child.once('exit', (code, signal) =>
      reject(new Error(`the web chat's worker exited before it was ready (${code ?? signal})`)),
    );
  });
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await gone;
}

/** Keep a screenshot when BATON_SCREENSHOTS names a folder; and the page never scrolls sideways. */
async function looked(page: Page, name: string): Promise<void> {
  const dir = process.env.BATON_SCREENSHOTS;
  if (dir) await page.screenshot({ path: path.join(dir, `web-chat-${name}.png`), fullPage: true });
  const overflow = (await page.evaluate(
    'document.documentElement.scrollWidth - document.documentElement.clientWidth',
  )) as number;
  expect(overflow, `${name}: the page scrolls sideways`).toBe(0);
}

/** The text of the chat's assistant bubbles, in order. */
const said = (chat: Locator) => chat.locator('.msg.assistant .said .bubble').allTextContents();

describe('the web chat example', () => {
  it('takes a refund request through both approvals, a reload and a lost worker to exactly the recorded answer', async () => {
    const queue = taskQueue();
    const streams = new RedisStreams({ url: redis.url });
    const baton = new Baton({ client: server.env.client, taskQueue: queue, streams });
    const auth = {
      tokens: [
        { token: TOKENS.alice, identity: 'alice', roles: ['starter' as const, 'approver' as const] },
        { token: TOKENS.manager, identity: MANAGER, roles: ['approver' as const] },
      ],
    };
    const site = await serveWebChat({
      baton,
      auth,
      dist,
      port: 0,
      agents: team.ids,
      metrics: false,
      uiStream: { keepAliveMs: 500 },
    });
    const workers = [await startWorker(queue)];
    try {
      // The customer's side, on a phone.
      const alice = await browser().newPage({ viewport: { width: 390, height: 844 } });
      await alice.goto(`${site.chatUrl}#token=${TOKENS.alice}`);
      const chat = alice.getByRole('region', { name: 'Conversation' });
      await alice.getByLabel('Message').fill(REQUEST);
      await alice.getByRole('button', { name: 'Send' }).click();
      const handoff = chat.getByRole('group', { name: 'Approval: Hand over to Refunds' });
      await handoff.waitFor({ timeout: 60_000 });
      await looked(alice, 'handoff-card-390');
      await handoff.getByRole('button', { name: 'Approve' }).click();
      await chat.getByRole('status').filter({ hasText: 'Waiting for manager' }).waitFor({ timeout: 60_000 });
      await chat.getByText('Refund $249.00 for order 1077').first().waitFor();
      await looked(alice, 'waiting-for-manager-390');
      const id = new URL(alice.url()).searchParams.get('c')!;

      // The manager's side, at a desk: the refund in the inbox, decided there.
      const manager = await browser().newPage({ viewport: { width: 1440, height: 900 } });
      await manager.goto(`${site.chatUrl}#token=${TOKENS.manager}`);
      const refund = manager
        .getByRole('complementary', { name: 'Approvals' })
        .getByRole('listitem', { name: 'issueRefund' });
      await refund.getByText('"amount": 249').waitFor({ timeout: 30_000 });
      await looked(manager, 'manager-inbox-1440');
      await refund.getByRole('button', { name: 'Approve' }).click();
      await refund.waitFor({ state: 'detached', timeout: 30_000 });

      // The answer streams in; the worker goes mid-answer.
      const partial = await waitFor(
        async () => (await said(chat)).join(''),
        (t) => t.length > 10,
        60_000,
      );
      await kill(workers[0]!);
      const shownAtKill = (await said(chat)).join('');
      expect(shownAtKill.startsWith(partial)).toBe(true);
      await looked(alice, 'mid-answer-390');

      // A reload while nobody writes: the page reads the conversation and follows the answer in progress.
      await alice.reload();
      await chat.getByText(REQUEST).waitFor({ timeout: 30_000 });
      await chat.getByText('Refund $249.00 for order 1077: approved by manager').waitFor({ timeout: 30_000 });
      const resumed = await waitFor(
        async () => (await said(chat)).join(''),
        (t) => t.length > 0,
        30_000,
      );
      expect(shownAtKill.startsWith(resumed) || resumed.startsWith(shownAtKill)).toBe(true);

      // Another worker takes the call again; the chat ends with the answer history records.
      workers.push(await startWorker(queue));
      const status = await waitFor(
        async () => chat.getAttribute('data-status'),
        (s) => s === 'ready' || s === 'error',
        90_000,
      );
      expect(status, await chat.innerText()).toBe('ready');
      const turns = await baton.conversation('triage', { id }).history();
      expect(turns.map((t) => [t.message, t.agent])).toEqual([[REQUEST, 'refunds']]);
      const recorded = String(turns[0]!.output);
      expect(recorded).toMatch(/refund for order 1077 is on its way/);
      expect(await said(chat)).toEqual([recorded]);
      expect(shownAtKill.length).toBeLessThan(recorded.length);
      expect(recorded.startsWith(shownAtKill)).toBe(true);
      await looked(alice, 'answered-390');
      await alice.setViewportSize({ width: 1440, height: 900 });
      await looked(alice, 'answered-1440');

      // Paid once, though the worker was lost after the refund.
      const paid = new RefundLedger(dataDir).list().filter((r) => r.idempotencyKey.startsWith(`${id}:`));
      expect(paid.map((r) => [r.orderId, r.amount])).toEqual([['1077', 249]]);
    } finally {
      await site.close();
      for (const w of workers) await kill(w);
      await streams.close();
    }
  }, 300_000);
});
