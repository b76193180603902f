/**
 * Notifications on a real Temporal server and worker: a webhook receiver, a real SMTP server and a
 * Slack-shaped server receive what they should when a tool call waits for approval; exactly the
 * decisions sent through a Slack button or an email link are applied; forged Slack requests and
 * replayed or altered links are refused; a receiver that is down does not hold the chain.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { caller, TOKENS, withService } from '../server/service';
import { freePort, httpReceiver, smtpServer } from './receivers';
import { docRecipe, HOOK_SECRET, notifications, slackClick, START, team } from './notifications.fixtures';

const server = useTemporalServer();

let smtp: Awaited<ReturnType<typeof smtpServer>>;
beforeAll(async () => {
  smtp = await smtpServer();
}, 120_000);
afterAll(async () => {
  await smtp?.close();
});

describe('notifications of approvals', () => {
  it('reach a webhook (signed CloudEvent), email and Slack; a Slack click decides as the mapped user, forged and stale clicks and unmapped users are refused', async () => {
    const hook = await httpReceiver();
    const slack = await httpReceiver();
    const port = await freePort();
    try {
      await withService(
        server.env,
        team(port, smtp.port, `${hook.url}/hook`, slack.url),
        async ({ call, baton }) => {
          const { workflowId } = (await call('POST', '/v1/runs', { token: TOKENS.ops, body: START })).body;
          await waitFor(
            async () => [hook.received.length, slack.received.length, smtp.messages().length],
            (n) => n.every((k) => k >= 1),
            30_000,
          );
          const pending = (await baton.getRun(workflowId).pendingApprovals())[0]!;

          const delivery = hook.received[0]!;
          expect(delivery.headers['content-type']).toMatch(/^application\/cloudevents\+json/);
          expect(docRecipe()(HOOK_SECRET, delivery.headers, delivery.body)).toBe(true);
          expect(docRecipe()(HOOK_SECRET, delivery.headers, delivery.body.replace('A1', 'A2'))).toBe(false);
          expect(docRecipe()('another-secret-0000000', delivery.headers, delivery.body)).toBe(false);
          const event = JSON.parse(delivery.body);
          expect(event).toMatchObject({
            specversion: '1.0',
            id: `${pending.handoffId}:approval.opened`,
            type: 'dev.baton.approval.opened',
            subject: pending.handoffId,
            source: `baton:chain/${workflowId}`,
          });
          expect(event.data).toMatchObject({
            workflowId,
            approvalId: pending.handoffId,
            kind: 'tool_call',
            approvers: ['alice'],
            tool: { name: 'issueRefund', callHash: pending.tool!.callHash },
          });
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
          expect(actions.elements.map((e: { action_id: string }) => e.action_id)).toEqual([
            'baton_approve',
            'baton_reject',
          ]);
          const approveValue = actions.elements[0].value as string;
          expect(JSON.parse(approveValue)).toEqual({
            workflowId,
            approvalId: pending.handoffId,
            decision: 'approve',
            callHash: pending.tool!.callHash,
          });

          const svc = caller(`http://127.0.0.1:${port}`);
          const respond = `${slack.url}/respond`;
          const forged = slackClick('U_ALICE', approveValue, 'baton_approve', respond, {
            secret: 'not-the-secret-000',
          });
          expect((await svc('POST', '/v1/slack/interactions', forged)).status).toBe(401);
          const stale = slackClick('U_ALICE', approveValue, 'baton_approve', respond, { at: Date.now() - 6 * 60_000 });
          expect((await svc('POST', '/v1/slack/interactions', stale)).status).toBe(401);
          const tampered = slackClick('U_ALICE', approveValue, 'baton_approve', respond);
          expect(
            (
              await svc('POST', '/v1/slack/interactions', {
                ...tampered,
                body: tampered.body.replace('U_ALICE', 'U_BOB'),
              })
            ).status,
          ).toBe(401);
          expect(
            (
              await svc(
                'POST',
                '/v1/slack/interactions',
                slackClick('U_MALLORY', approveValue, 'baton_approve', respond),
              )
            ).status,
          ).toBe(403);
          // bob is mapped, but the policy names alice only: the same rule as the HTTP API.
          const byBob = await svc(
            'POST',
            '/v1/slack/interactions',
            slackClick('U_BOB', approveValue, 'baton_approve', respond),
          );
          expect(byBob.status).toBe(403);
          expect(byBob.body.detail).toBe('bob may not decide this tool call (approvers: alice)');
          expect((await baton.getRun(workflowId).pendingApprovals()).length).toBe(1);

          const ok = await svc(
            'POST',
            '/v1/slack/interactions',
            slackClick('U_ALICE', approveValue, 'baton_approve', respond),
          );
          expect(ok.status).toBe(200);
          expect(ok.body.record).toMatchObject({
            handoffId: pending.handoffId,
            outcome: 'approved',
            approver: 'alice',
            tool: 'issueRefund',
          });
          const again = await svc(
            'POST',
            '/v1/slack/interactions',
            slackClick('U_ALICE', approveValue.replace('approve', 'reject'), 'baton_reject', respond),
          );
          expect(again.status).toBe(404);
          expect((await baton.getRun(workflowId).result()).output).toBe('Refund issued.');
          expect(ok.body.record.comment).toBe('approved in Slack by U_ALICE');
          expect(slack.received.filter((r) => r.path === '/respond').map((r) => JSON.parse(r.body).text)).toContain(
            'Approved by alice.',
          );
        },
        { service: { port, notifications } },
      );
    } finally {
      await hook.close();
      await slack.close();
    }
  });

  it('email links decide exactly once as the identity they were issued for; altered, replayed and sibling links are refused, by a restarted service too', async () => {
    const hook = await httpReceiver();
    const slack = await httpReceiver();
    const port = await freePort();
    try {
      let queue = '';
      await withService(
        server.env,
        team(port, smtp.port, hook.url, slack.url),
        async ({ call, baton, queue: q }) => {
          queue = q;
          const { workflowId } = (await call('POST', '/v1/runs', { token: TOKENS.ops, body: START })).body;
          const mail = (
            await waitFor(
              async () => smtp.messages().filter((m) => m.headers['x-baton-chain'] === workflowId),
              (m) => m.length >= 1,
              30_000,
            )
          )[0]!;
          const link = (d: string) => new URL(new RegExp(`${d} as alice: (\\S+)`).exec(mail.text)![1]!).pathname;
          const approve = link('Approve');
          const reject = link('Reject');
          const svc = caller(`http://127.0.0.1:${port}`);

          const page = await svc('GET', approve);
          expect(page.status).toBe(200);
          expect(page.text).toContain('Approve approval');
          expect((await baton.getRun(workflowId).pendingApprovals()).length).toBe(1);

          const [payload, mac] = approve.slice('/v1/links/'.length).split('.');
          const altered = JSON.parse(Buffer.from(payload!, 'base64url').toString());
          const forged = `/v1/links/${Buffer.from(JSON.stringify({ ...altered, identity: 'bob' })).toString('base64url')}.${mac}`;
          expect((await svc('POST', forged)).status).toBe(403);
          expect((await svc('POST', `${approve.slice(0, -2)}xx`)).status).toBe(403);

          const applied = await svc('POST', approve);
          expect(applied.status).toBe(200);
          expect(applied.body).toMatchObject({
            outcome: 'approved',
            approver: 'alice',
            link: altered.id,
            comment: `approved by email link ${altered.id}`,
          });
          expect((await svc('POST', approve)).status).toBe(410);
          expect((await svc('POST', reject)).status).toBe(410);
          expect((await baton.getRun(workflowId).result()).output).toBe('Refund issued.');
        },
        { service: { port, notifications } },
      );
      // A service started afresh knows nothing of the links used before; the chain refuses them still.
      await withService(
        server.env,
        team(port, smtp.port, hook.url, slack.url),
        async () => {
          const mails = smtp.messages();
          const last = mails[mails.length - 1]!;
          const approve = new URL(/Approve as alice: (\S+)/.exec(last.text)![1]!).pathname;
          expect((await caller(`http://127.0.0.1:${port}`)('POST', approve)).status).toBe(410);
        },
        { service: { port, notifications }, worker: { taskQueue: queue } },
      );
    } finally {
      await hook.close();
      await slack.close();
    }
  });

  it('a receiver that is down does not hold the chain; the notification is retried with the same id while the approval waits', async () => {
    const hookPort = await freePort();
    const slack = await httpReceiver(0, 503);
    const port = await freePort();
    try {
      await withService(
        server.env,
        team(port, smtp.port, `http://127.0.0.1:${hookPort}/hook`, slack.url),
        async ({ call, baton }) => {
          const { workflowId } = (await call('POST', '/v1/runs', { token: TOKENS.ops, body: START })).body;
          const pending = (
            await waitFor(
              () => baton.getRun(workflowId).pendingApprovals(),
              (p) => p.length === 1,
            )
          )[0]!;
          // Both down at first: Slack answers 503, nothing listens for the webhook; the activity retries.
          await waitFor(
            async () => slack.received.length,
            (n) => n >= 2,
            30_000,
          );
          const hook = await httpReceiver(hookPort);
          try {
            await waitFor(
              async () => hook.received.length,
              (n) => n >= 1,
              30_000,
            );
            expect(JSON.parse(hook.received[0]!.body).id).toBe(`${pending.handoffId}:approval.opened`);
            // Retried for Slack, which still refuses; what the webhook took is not sent to it again.
            const seen = slack.received.length;
            await waitFor(
              async () => slack.received.length,
              (n) => n > seen,
              30_000,
            );
            expect(hook.received.length).toBe(1);
          } finally {
            await hook.close();
          }
          // The chain takes its decision and ends while Slack still refuses the notification.
          const decided = await call('POST', `/v1/runs/${workflowId}/approvals/${pending.handoffId}`, {
            token: TOKENS.alice,
            body: { decision: 'approve' },
          });
          expect(decided.status).toBe(200);
          expect((await baton.getRun(workflowId).result()).output).toBe('Refund issued.');
        },
        { service: { port, notifications } },
      );
    } finally {
      await slack.close();
    }
  });
});
