/**
 * The `notifyApprovers` activity: tell the people an approval asks, on every channel the team
 * configured. At least once: each target that took the notification is remembered in the
 * activity's heartbeat, so a retry (with the workflow's backoff) sends only to those that did not;
 * every message carries the idempotency key (approval id + event kind) for receivers that see one twice.
 */
import { Context } from '@temporalio/activity';
import type { NotificationOptions } from '../../src/agents/notifications';
import type { NotifyInput, NotifyResult } from '../../src/common/notifications';
import { emailOf, recipientsOf, sendEmail } from './email';
import { sendSlack, slackMessageOf } from './slack';
import { cloudEventOf, sendWebhook } from './webhook';

/** One delivery: a target's name and how to send to it. */
interface Delivery {
  target: string;
  send(): Promise<void>;
}

/** The notification activities of a worker whose team has `channels` (none: the activity says so, and sends nothing). */
export function notifyActivities(channels: NotificationOptions | undefined) {
  return {
    async notifyApprovers(input: NotifyInput): Promise<NotifyResult> {
      const ctx = Context.current();
      const earlier = ctx.info.heartbeatDetails as NotifyResult | undefined;
      const delivered = new Set(Array.isArray(earlier?.delivered) ? earlier.delivered : []);
      const failures: string[] = [];
      for (const d of deliveries(channels, input)) {
        if (delivered.has(d.target)) continue;
        try {
          await d.send();
          delivered.add(d.target);
          ctx.heartbeat({ delivered: [...delivered] });
        } catch (err) {
          failures.push(`${d.target}: ${(err as Error).message}`);
        }
      }
      if (failures.length > 0) {
        ctx.heartbeat({ delivered: [...delivered] });
        // Retried by the workflow's policy, with backoff; what was delivered is not sent again.
        throw new Error(`notifying ${input.key} failed for ${failures.join('; ')}`);
      }
      return { delivered: [...delivered] };
    },
  };
}

function deliveries(channels: NotificationOptions | undefined, input: NotifyInput): Delivery[] {
  if (!channels) return [];
  const now = new Date();
  const event = cloudEventOf(input, channels.serviceUrl, now);
  const out: Delivery[] = (channels.webhooks ?? []).map((w, i) => ({
    target: `webhook:${i}`,
    send: () => sendWebhook(w.url, w.secret, event),
  }));
  const email = channels.email;
  if (email) {
    for (const r of recipientsOf(email, input)) {
      out.push({
        target: `email:${r.address}`,
        send: () => sendEmail(email, emailOf(email, input, r, channels.serviceUrl, channels.links)),
      });
    }
  }
  const slack = channels.slack;
  if (slack)
    out.push({ target: 'slack', send: () => sendSlack(slack.webhookUrl, slackMessageOf(input, channels.serviceUrl)) });
  return out;
}

export { issueLink, verifyLink, LinkRefusedError, type DecisionLink } from './links';
export { WebhookHeaders, webhookSignature } from './webhook';
export { SlackActions, type SlackButtonValue } from './slack';

/** The notification activities' type, for workflows' `proxyActivities`. */
export type NotifyActivities = ReturnType<typeof notifyActivities>;
