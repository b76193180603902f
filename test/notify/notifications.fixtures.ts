/**
 * What the notifications test (notifications.test.ts) runs on: its secrets, a team whose refund waits
 * for alice and notifies a webhook, email and Slack, the service's notification settings, a Slack
 * click signed as Slack signs one, and the webhook check docs/notifications.md gives.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Team } from '../../src/agents/team';
import { slackSignature } from '../../src/server/notify/slackSignature';
import { scriptedAgent } from '../helpers/agents';
import { issueRefund } from '../server/team';

/** The secret the webhook's deliveries are signed with. */
export const HOOK_SECRET = 'webhook-secret-0123456789';
const LINK_SECRET = 'link-secret-0123456789-0123456789-abc';
const SLACK_SECRET = 'slack-signing-secret-42';
const USERS = { U_ALICE: 'alice', U_BOB: 'bob' };

/** The recipe docs/notifications.md gives, as written there. */
export function docRecipe(): (secret: string, headers: Record<string, unknown>, body: string) => boolean {
  const doc = fs.readFileSync(path.resolve(__dirname, '../../docs/notifications.md'), 'utf8');
  const code = /<!-- webhook-recipe -->\n+```js\n([\s\S]*?)```/.exec(doc)![1]!;
  return new Function('require', `${code}\nreturn verifyBatonWebhook;`)(require) as never;
}

/** A refund agent whose tool call waits for alice, notifying the webhook at `hookUrl`, the SMTP server at `smtpPort` and Slack at `slackUrl`, with links to the service on `port`. */
export function team(port: number, smtpPort: number, hookUrl: string, slackUrl: string) {
  return new Team(
    [
      scriptedAgent(
        'refunds',
        [
          { toolCalls: [{ name: 'issueRefund', arguments: { orderId: 'A1', amount: 250 } }] },
          { text: 'Refund issued.' },
        ],
        { tools: [issueRefund] },
      ),
    ],
    {
      notifications: {
        serviceUrl: `http://127.0.0.1:${port}`,
        webhooks: [{ url: hookUrl, secret: HOOK_SECRET }],
        email: {
          smtp: { host: '127.0.0.1', port: smtpPort },
          from: 'baton@example.com',
          to: [
            { address: 'alice@example.com', identity: 'alice' },
            { address: 'bob@example.com', identity: 'bob' },
          ],
        },
        slack: { webhookUrl: `${slackUrl}/services/T0/B0/x` },
        links: { secret: LINK_SECRET, ttl: '1h' },
      },
    },
  );
}

/** A Slack `block_actions` request for a click on `action` by `userId`, signed with the Slack secret (or `options.secret`) at `options.at`. */
export function slackClick(
  userId: string,
  value: string,
  action: string,
  responseUrl: string,
  options: { secret?: string; at?: number } = {},
) {
  const payload = {
    type: 'block_actions',
    user: { id: userId },
    actions: [{ action_id: action, value }],
    response_url: responseUrl,
  };
  const body = `payload=${encodeURIComponent(JSON.stringify(payload))}`;
  const ts = String(Math.floor((options.at ?? Date.now()) / 1000));
  return {
    body,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': ts,
      'x-slack-signature': slackSignature(options.secret ?? SLACK_SECRET, ts, body),
    },
  };
}

/** The run every test starts: a refund of order A1. */
export const START = { agent: 'refunds', input: 'Refund order A1.' };
/** The service's notification settings: the link secret, and Slack's signing secret with its user map. */
export const notifications = { linkSecret: LINK_SECRET, slack: { signingSecret: SLACK_SECRET, users: USERS } };
