/**
 * Notifications on a real Temporal server and worker: a webhook receiver, a real SMTP server and a
 * Slack-shaped server receive what they should when a tool call waits for approval; exactly the
 * decisions sent through a Slack button or an email link are applied; forged Slack requests and
 * replayed or altered links are refused; a receiver that is down does not hold the chain.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Team } from '../../src/agents/team';
import { useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { scriptedAgent } from '../helpers/agents';
import { issueRefund } from '../server/team';
import { caller, TOKENS, withService } from '../server/service';
import { slackSignature } from '../../src/server/notify/slackSignature';
import { freePort, httpReceiver, smtpServer } from './receivers';

const server = useTemporalServer();
const HOOK_SECRET = 'webhook-secret-0123456789';
const LINK_SECRET = 'link-secret-0123456789-0123456789-abc';
const SLACK_SECRET = 'slack-signing-secret-42';
const USERS = { U_ALICE: 'alice', U_BOB: 'bob' };

let smtp: Awaited<ReturnType<typeof smtpServer>>;
beforeAll(async () => {
  smtp = await smtpServer();
}, 120_000);
afterAll(async () => {
  await smtp?.close();
});

/** The recipe docs/notifications.md gives, as written there. */
function docRecipe(): (secret: string, headers: Record<string, unknown>, body: string) => boolean {
  const doc = fs.readFileSync(path.resolve(__dirname, '../../docs/notifications.md'), 'utf8');
  const code = /<!-- webhook-recipe -->\n```js\n([\s\S]*?)```/.exec(doc)![1]!;
  return new Function('require', `${code}\nreturn verifyBatonWebhook;`)(require) as never;
}

function team(port: number, hookUrl: string, slackUrl: string) {
  return new Team([scriptedAgent('refunds', [{ toolCalls: [{ name: 'issueRefund', arguments: { orderId: 'A1', amount: 250 } }] }, { text: 'Refund issued.' }], { tools: [issueRefund] })], {
    notifications: {
      serviceUrl: `http://127.0.0.1:${port}`,
      webhooks: [{ url: hookUrl, secret: HOOK_SECRET }],
      email: { smtp: { host: '127.0.0.1', port: smtp.port }, from: 'baton@example.com', to: [{ address: 'alice@example.com', identity: 'alice' }, { address: 'bob@example.com', identity: 'bob' }] },
      slack: { webhookUrl: `${slackUrl}/services/T0/B0/x` },
      links: { secret: LINK_SECRET, ttl: '1h' },
    },
  });
}

function slackClick(userId: string, value: string, action: string, responseUrl: string, options: { secret?: string; at?: number } = {}) {
  const payload = { type: 'block_actions', user: { id: userId }, actions: [{ action_id: action, value }], response_url: responseUrl };
  const body = `payload=${encodeURIComponent(JSON.stringify(payload))}`;
  const ts = String(Math.floor((options.at ?? Date.now()) / 1000));
  return { body, headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-slack-request-timestamp': ts, 'x-slack-signature': slackSignature(options.secret ?? SLACK_SECRET, ts, body) } };
}

const START = { agent: 'refunds', input: 'Refund order A1.' };
const notifications = { linkSecret: LINK_SECRET, slack: { signingSecret: SLACK_SECRET, users: USERS } };

describe('notifications of approvals', () => {
  it('reach a webhook (signed CloudEvent), email and Slack; a Slack click decides as the mapped user, forged and stale clicks and unmapped users are refused', async () => {
    const hook = await httpReceiver();
    const slack = await httpReceiver();
    const port = await freePort();
    try {
      await withService(server.env, team(port, `${hook.url}/hook`, slack.url), async ({ call, baton }) => {
        const { workflowId } = (await call('POST', '/v1/runs', { token: TOKENS.ops, body: START })).body;
        await waitFor(async () => [hook.received.length, slack.received.length, smtp.messages().length], (n) => n.every((k) => k >= 1), 30_000);
        const pending = (await baton.getRun(workflowId).pendingApprovals())[0]!;

        const delivery = hook.received[0]!;
        expect(delivery.headers['content-type']).toMatch(/^application\/cloudevents\+json/);
        expect(docRecipe()(HOOK_SECRET, delivery.headers, delivery.body)).toBe(true);
        expect(docRecipe()(HOOK_SECRET, delivery.headers, delivery.body.replace('A1', 'A2'))).toBe(false);
        expect(docRecipe()('another-secret-0000000', delivery.headers, delivery.body)).toBe(false);
        const event = JSON.parse(delivery.body);
        expect(event).toMatchObject({ specversion: '1.0', id: `${pending.handoffId}:approval.opened`, type: 'dev.baton.approval.opened', subject: pending.handoffId, source: `baton:chain/${workflowId}` });
        expect(event.data).toMatchObject({ workflowId, approvalId: pending.handoffId, kind: 'tool_call', approvers: ['alice'], tool: { name: 'issueRefund', callHash: pending.tool!.callHash } });
        expect(event.data.card).toBe(`http://127.0.0.1:${port}/runs/${workflowId}#approval-${pending.handoffId}`);

        const mails = smtp.messages().filter((m) => m.headers['x-baton-chain'] === workflowId);
        // Only alice is asked: bob is not among the tool's approvers.
        expect(mails.map((m) => m.rcpt)).toEqual([['alice@example.com']]);
        expect(mails[0]!.headers['x-baton-idempotency-key']).toBe(`${pending.handoffId}:approval.opened`);
        expect(mails[0]!.text).toContain(event.data.card);
        expect(mails[0]!.text).toMatch(/Approve as alice: http:\/\/127\.0\.0\.1:\d+\/v1\/links\/\S+/);

        const message = JSON.parse(slack.received[0]!.body);
        expect(slack.received[0]!.path).toBe('/services/T0/B0/x');
        const actions = message.blocks.find((b: { type: string }) => b.type === 'actions');
        expect(actions.elements.map((e: { action_id: string }) => e.action_id)).toEqual(['baton_approve', 'baton_reject']);
        const approveValue = actions.elements[0].value as string;
        expect(JSON.parse(approveValue)).toEqual({ workflowId, approvalId: pending.handoffId, decision: 'approve', callHash: pending.tool!.callHash });

        const svc = caller(`http://127.0.0.1:${port}`);
        const respond = `${slack.url}/respond`;
        const forged = slackClick('U_ALICE', approveValue, 'baton_approve', respond, { secret: 'not-the-secret-000' });
        expect((await svc('POST', '/v1/slack/interactions', forged)).status).toBe(401);
        const stale = slackClick('U_ALICE', approveValue, 'baton_approve', respond, { at: Date.now() - 6 * 60_000 });
        expect((await svc('POST', '/v1/slack/interactions', stale)).status).toBe(401);
        const tampered = slackClick('U_ALICE', approveValue, 'baton_approve', respond);
        expect((await svc('POST', '/v1/slack/interactions', { ...tampered, body: tampered.body.replace('U_ALICE', 'U_BOB') })).status).toBe(401);
        expect((await svc('POST', '/v1/slack/interactions', slackClick('U_MALLORY', approveValue, 'baton_approve', respond))).status).toBe(403);
        // bob is mapped, but the policy names alice only: the same rule as the HTTP API.
        const byBob = await svc('POST', '/v1/slack/interactions', slackClick('U_BOB', approveValue, 'baton_approve', respond));
        expect(byBob.status).toBe(403);
        expect(byBob.body.detail).toBe('bob may not decide this tool call (approvers: alice)');
        expect((await baton.getRun(workflowId).pendingApprovals()).length).toBe(1);

        const ok = await svc('POST', '/v1/slack/interactions', slackClick('U_ALICE', approveValue, 'baton_approve', respond));
        expect(ok.status).toBe(200);
        expect(ok.body.record).toMatchObject({ handoffId: pending.handoffId, outcome: 'approved', approver: 'alice', tool: 'issueRefund' });
        const again = await svc('POST', '/v1/slack/interactions', slackClick('U_ALICE', approveValue.replace('approve', 'reject'), 'baton_reject', respond));
        expect(again.status).toBe(404);
        expect((await baton.getRun(workflowId).result()).output).toBe('Refund issued.');
        expect(ok.body.record.comment).toBe('approved in Slack by U_ALICE');
        expect(slack.received.filter((r) => r.path === '/respond').map((r) => JSON.parse(r.body).text)).toContain('Approved by alice.');
      }, { service: { port, notifications } });
    } finally {
      await hook.close();
      await slack.close();
    }
  });
});
