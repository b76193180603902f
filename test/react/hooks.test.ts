/**
 * The hooks of `baton-agents/react` in Chromium, on a page built with Vite (test/react/app) and
 * served beside baton's HTTP service, against the web chat's team on a real Temporal server:
 * `useRun` follows a chain to its end (the same events as the client's, its answer as history
 * records it, again after a reload), `usePendingApprovals` lists what waits, `useApprove` decides
 * as the caller and says why a decision is refused.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Baton } from '../../src/client/baton';
import { buildApp } from '../../examples/web-chat/build';
import { serveWebChat } from '../../examples/web-chat/server';
import { MANAGER } from '../../examples/web-chat/team';
import { createWebChatWorker } from '../../examples/web-chat/worker';
import { taskQueue, useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { useBrowser } from '../server/browser';

const server = useTemporalServer();
const browser = useBrowser();
const ALICE = 'hooks-alice-token';
const REQUEST = 'Please refund order 1077, the espresso machine stopped working.';

let dist: string;
let dataDir: string;
beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-hooks-test-'));
  process.env.BATON_EXAMPLE_DATA = dataDir;
  dist = await buildApp({ root: path.join(__dirname, 'app'), base: '/hooks/', name: 'react-hooks-page' });
}, 180_000);
afterAll(() => {
  delete process.env.BATON_EXAMPLE_DATA;
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('baton-agents/react hooks', () => {
  it('follow a chain to its recorded answer, list its approvals and decide them as the caller', async () => {
    const queue = taskQueue();
    const baton = new Baton({ client: server.env.client, taskQueue: queue });
    const worker = await createWebChatWorker({ connection: server.env.nativeConnection, taskQueue: queue, wordMs: 30 });
    await worker.runUntil(async () => {
      const auth = { tokens: [{ token: ALICE, identity: 'alice', roles: ['starter' as const, 'approver' as const] }] };
      const site = await serveWebChat({ baton, auth, dist, port: 0, path: '/hooks/', metrics: false });
      try {
        const run = await baton.start('triage', REQUEST);
        const page = await browser().newPage();
        await page.goto(`${site.chatUrl}?run=${encodeURIComponent(run.workflowId)}#token=${ALICE}`);
        const inbox = page.getByRole('region', { name: 'Inbox' });

        // The handoff waits: the inbox lists it, and alice approves it from the page.
        const handoff = inbox.getByRole('listitem', { name: 'refunds' });
        await handoff.waitFor({ timeout: 30_000 });
        expect(await handoff.getAttribute('data-can-decide')).toBe('true');
        await handoff.getByRole('button', { name: 'Approve' }).click();
        await handoff.waitFor({ state: 'detached', timeout: 30_000 });

        // The refund above $100 is the manager's: alice's decision is refused, and the page says why.
        const refund = inbox.getByRole('listitem', { name: 'tool:issueRefund' });
        await refund.waitFor({ timeout: 30_000 });
        expect(await refund.getAttribute('data-can-decide')).toBe('false');
        await refund.getByRole('button', { name: 'Approve' }).click();
        const refused = await page.getByTestId('decide-error').textContent({ timeout: 30_000 });
        expect(refused).toMatch(/ answered 403: alice may not decide this tool call \(approvers: manager\)/);
        const waiting = await waitFor(
          () => run.pendingApprovals(),
          (p) => p.some((w) => w.tool),
        );
        await baton.approve(run.workflowId, waiting.find((w) => w.tool)!.handoffId, { approver: MANAGER });

        // The chain ends: the page holds the client's events, and the answer history records.
        const result = await run.result();
        await page.locator('[aria-label="Run"][data-status="completed"]').waitFor({ timeout: 30_000 });
        const expected: string[] = [];
        for await (const e of run.events()) expected.push(e.kind);
        const events = page.getByRole('list', { name: 'Events' }).getByRole('listitem');
        expect(await events.allTextContents()).toEqual(expected);
        expect(expected).toEqual(
          expect.arrayContaining(['approval_requested', 'approval_decided', 'handoff', 'completed']),
        );
        expect(await page.getByTestId('text').textContent()).toBe(result.output);
        expect(await page.getByTestId('output').textContent()).toBe(result.output);
        const calls = await page.getByRole('list', { name: 'Calls' }).getByRole('listitem').allTextContents();
        expect(calls.at(-1)).toBe(`refunds#2: ${String(result.output)}`);

        // A reload follows the chain from its start again: each event once.
        await page.reload();
        await page.locator('[aria-label="Run"][data-status="completed"]').waitFor({ timeout: 30_000 });
        expect(await events.allTextContents()).toEqual(expected);
        expect(await inbox.getByRole('listitem').count()).toBe(0);

        // A chain that is not there: the hook says so, and stops.
        await page.goto(`${site.chatUrl}?run=no-such-chain#token=${ALICE}`);
        expect(await page.getByTestId('run-error').textContent({ timeout: 30_000 })).toMatch(
          / answered 404: no chain no-such-chain/,
        );
        expect(await page.getByTestId('status').textContent()).toBe('ended');
      } finally {
        await site.close();
      }
    });
  }, 180_000);
});
