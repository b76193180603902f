/**
 * The approvals page's request-info and typed reasons in Chromium, on a real Temporal server and
 * worker: alice asks the requester from the card (the question is on the chain's record), the
 * requester's side answers from the card, and alice rejects with one of the team's reason codes,
 * which the agent's rejection carries.
 */
import { describe, expect, it } from 'vitest';
import { Team } from '../../src';
import { useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { signIn, useBrowser } from './browser';
import { TOKENS, withService } from './service';
import { toolApprovalTeam } from './team';

const server = useTemporalServer();
const browser = useBrowser();

const team = () => new Team(toolApprovalTeam().agents, { name: 'reasons', rejectionReasons: [{ code: 'over_limit', label: 'Over the refund limit' }, { code: 'duplicate', label: 'Already refunded' }] });

describe('the approvals page: asking, answering and typed reasons', () => {
  it('asks, answers and rejects with a reason code from the card', { timeout: 240_000 }, async () => {
    await withService(server.env, team(), async ({ service, call, baton }) => {
      const workflowId = (await call('POST', '/v1/runs', { token: TOKENS.ops, body: { agent: 'refunds', input: 'Refund order A1.' } })).body.workflowId as string;
      await waitFor(() => baton.getRun(workflowId).pendingApprovals(), (p) => p.length === 1);
      const page = await browser().newPage({ viewport: { width: 1100, height: 900 } });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await signIn(page, `${service.url}/`, TOKENS.alice);
      const card = page.locator(`.card[data-key^="${workflowId}/"]`);
      await card.waitFor({ timeout: 20_000 });
      const select = card.locator('select.reason-code');
      expect(await select.locator('option').allTextContents()).toEqual(['Rejection reason (choose one to reject)', 'Over the refund limit (over_limit)', 'Already refunded (duplicate)']);

      await card.locator('input.ask-text').fill('Why 250?');
      await card.locator('button.ask').click();
      const asked = await waitFor(() => baton.audit(workflowId), (a) => a.events.some((e) => e.kind === 'approval_asked'));
      expect(asked.events.find((e) => e.kind === 'approval_asked')).toMatchObject({ question: 'Why 250?', askedBy: 'alice' });

      // The requester's side (ops may start chains, so answers for the requester) answers from its card.
      const ops = await browser().newPage({ viewport: { width: 1100, height: 900 } });
      await signIn(ops, `${service.url}/`, TOKENS.ops);
      const opsCard = ops.locator(`.card[data-key^="${workflowId}/"]`);
      await opsCard.locator('input.answer-text').fill('Shipping included.');
      await opsCard.locator('button.answer').click();
      await expect.poll(async () => (await baton.getRun(workflowId).pendingApprovals())[0]?.questions?.[0]?.answer, { timeout: 20_000 }).toBe('Shipping included.');
      await expect.poll(() => card.locator('.question .answer').textContent(), { timeout: 20_000 }).toContain('Shipping included.');

      await card.locator('select.reason-code').selectOption('over_limit');
      await card.locator('button.reject').click();
      const result = await waitFor(() => call('GET', `/v1/runs/${workflowId}`, { token: TOKENS.viewer }), (a) => a.body.status === 'completed');
      expect(result.body.status).toBe('completed');
      const audit = await baton.audit(workflowId);
      expect(audit.events.find((e) => e.kind === 'approval_decided')).toMatchObject({ outcome: 'rejected', approver: 'alice', reason: 'over_limit' });
      const toolMessage = JSON.stringify(audit.events.filter((e) => e.kind === 'tool_call'));
      expect(toolMessage).toContain('over_limit');
      expect(errors).toEqual([]);
    });
  });
});
