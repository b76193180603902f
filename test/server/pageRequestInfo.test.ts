/**
 * The approvals page's request-info and typed reasons in Chromium, on a real Temporal server and
 * worker: alice asks the requester from her inbox card (an oversized question refused in the card,
 * nothing recorded), the requester answers on the chain's page, where the open question waits with
 * an Answer field, alice's card shows the answer, a second question that lost a race is refused in
 * the card, and alice rejects with one of the team's reason codes, which the agent's rejection carries.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { LIMITS, Team } from '../../src';
import { useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { signIn, useBrowser } from './browser';
import { TOKENS, withService } from './service';
import { toolApprovalTeam } from './team';

const server = useTemporalServer();
const browser = useBrowser();

const team = () =>
  new Team(toolApprovalTeam().agents, {
    name: 'reasons',
    rejectionReasons: [
      { code: 'over_limit', label: 'Over the refund limit' },
      { code: 'duplicate', label: 'Already refunded' },
    ],
  });

/** A new page (its own session) that records the script errors it meets. */
async function openPage(errors: string[]): Promise<Page> {
  const page = await browser().newPage({ viewport: { width: 1100, height: 900 } });
  page.on('pageerror', (e) => errors.push(e.message));
  return page;
}

describe('the approvals page: asking, answering and typed reasons', () => {
  it(
    'asks from the inbox, answers on the chain page, refuses in the card and rejects with a reason code',
    { timeout: 240_000 },
    async () => {
      await withService(server.env, team(), async ({ service, call, baton }) => {
        const workflowId = (
          await call('POST', '/v1/runs', { token: TOKENS.ops, body: { agent: 'refunds', input: 'Refund order A1.' } })
        ).body.workflowId as string;
        await waitFor(
          () => baton.getRun(workflowId).pendingApprovals(),
          (p) => p.length === 1,
        );
        const asked = async () => (await baton.audit(workflowId)).events.filter((e) => e.kind === 'approval_asked');
        const errors: string[] = [];
        const page = await openPage(errors);
        await signIn(page, `${service.url}/`, TOKENS.alice);
        const card = page.locator(`.card[data-key^="${workflowId}/"]`);
        await card.waitFor({ timeout: 20_000 });
        expect(await card.locator('select.reason-code option').allTextContents()).toEqual([
          'Rejection reason (choose one to reject)',
          'Over the refund limit (over_limit)',
          'Already refunded (duplicate)',
        ]);

        // A question over the limit: the service's refusal shows in the card, and nothing is asked.
        await card.locator('input.ask-text').fill('q'.repeat(LIMITS.questionChars + 1));
        await card.locator('button.ask').click();
        await expect
          .poll(() => card.locator('.question-problem').textContent(), { timeout: 10_000 })
          .toMatch(/^Could not ask: .*question.*2000/);
        expect(await card.locator('.question-problem').isVisible()).toBe(true);
        expect(await asked()).toEqual([]);

        await card.locator('input.ask-text').fill('Why 250?');
        await card.locator('button.ask').click();
        // The card shows the question as recorded at once: waiting for its answer, no second Ask while it is open.
        await expect
          .poll(() => card.locator('.question').textContent(), { timeout: 10_000 })
          .toBe('alice asked: Why 250? · waits for the answer');
        expect(await card.locator('input.ask-text').count()).toBe(0);
        expect(await card.locator('.question-problem').isVisible()).toBe(false);
        expect(await asked()).toMatchObject([{ question: 'Why 250?', askedBy: 'alice' }]);

        // The requester's side (ops may start chains, so it answers for the requester) answers on the chain's page.
        const ops = await openPage(errors);
        await signIn(ops, `${service.url}/runs/${encodeURIComponent(workflowId)}`, TOKENS.ops);
        const opsCard = ops.locator(`.card[data-key^="${workflowId}/"]`);
        await opsCard.locator('input.answer-text').waitFor({ timeout: 20_000 });
        expect(await opsCard.locator('button.approve').isDisabled()).toBe(true);
        expect(await opsCard.locator('.question').textContent()).toBe('alice asked: Why 250? · waits for the answer');
        await opsCard.locator('button.answer').click();
        expect(await opsCard.locator('.question-problem').textContent()).toBe('Write the answer first.');
        await opsCard.locator('input.answer-text').fill('Shipping included.');
        await opsCard.locator('button.answer').click();
        await expect
          .poll(() => opsCard.locator('.question .answer').textContent(), { timeout: 20_000 })
          .toBe(' · ops answered: Shipping included.');
        expect(await opsCard.locator('input.answer-text').count()).toBe(0);
        expect((await baton.getRun(workflowId).pendingApprovals())[0]?.questions).toMatchObject([
          { question: 'Why 250?', askedBy: 'alice', answer: 'Shipping included.', answeredBy: 'ops' },
        ]);

        // Alice's inbox card follows: the answer shows, and she may ask again.
        await expect
          .poll(() => card.locator('.question .answer').textContent(), { timeout: 20_000 })
          .toBe(' · ops answered: Shipping included.');
        await card.locator('input.ask-text').waitFor({ timeout: 10_000 });

        // Alice chooses a reason and writes a comment; the card rebuilt for a question asked elsewhere keeps both.
        await card.locator('select.reason-code').selectOption('over_limit');
        await card.locator('textarea.comment').fill('Over the limit for this customer.');

        // A second page of alice's on the chain, its live stream cut: a question asked elsewhere meanwhile makes hers the second, refused in the card.
        const stale = await openPage(errors);
        await stale.route('**/stream', (route) => route.abort());
        await signIn(stale, `${service.url}/runs/${encodeURIComponent(workflowId)}`, TOKENS.alice);
        const staleCard = stale.locator(`.card[data-key^="${workflowId}/"]`);
        await staleCard.locator('input.ask-text').waitFor({ timeout: 20_000 });
        await baton.ask(workflowId, { approver: 'alice', question: 'Which order?' });
        await staleCard.locator('input.ask-text').fill('And the tax?');
        await staleCard.locator('button.ask').click();
        await expect
          .poll(() => staleCard.locator('.question-problem').textContent(), { timeout: 10_000 })
          .toMatch(
            /^Could not ask: approval \S+ already waits for the answer to alice's question "Which order\?": answer it first$/,
          );
        expect((await asked()).map((e) => e.question)).toEqual(['Why 250?', 'Which order?']);

        await expect
          .poll(() => card.locator('.question').last().textContent(), { timeout: 20_000 })
          .toBe('alice asked: Which order? · waits for the answer');
        expect(await card.locator('select.reason-code').inputValue()).toBe('over_limit');
        expect(await card.locator('textarea.comment').inputValue()).toBe('Over the limit for this customer.');
        // A rejection carries one note: with a code chosen, the comment is refused in the card rather than dropped.
        await card.locator('button.reject').click();
        expect(await card.locator('.decide-problem').textContent()).toBe(
          'A rejection with a reason code carries no comment: clear the comment to reject with the code.',
        );
        expect((await baton.audit(workflowId)).events.filter((e) => e.kind === 'approval_decided')).toEqual([]);
        await card.locator('textarea.comment').fill('');
        await card.locator('button.reject').click();
        const result = await waitFor(
          () => call('GET', `/v1/runs/${workflowId}`, { token: TOKENS.viewer }),
          (a) => a.body.status === 'completed',
        );
        expect(result.body.status).toBe('completed');
        const audit = await baton.audit(workflowId);
        expect(audit.events.filter((e) => e.kind === 'approval_decided')).toMatchObject([
          { outcome: 'rejected', approver: 'alice', reason: 'over_limit' },
        ]);
        expect(JSON.stringify(audit.events.filter((e) => e.kind === 'tool_call'))).toContain('over_limit');
        expect(errors).toEqual([]);
      });
    },
  );
});
