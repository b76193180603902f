/**
 * Webhooks: the notification as a CloudEvent 1.0 in structured mode (`application/cloudevents+json`),
 * signed with HMAC-SHA256 over `<timestamp>.<body>` (docs/notifications.md has the headers and a
 * verification recipe).
 */
import { createHmac } from 'node:crypto';
import type { NotifyInput } from '../../src/common/notifications';
import { cardUrl, eventData } from './message';

/** The headers a signed webhook carries. */
export const WebhookHeaders = {
  ID: 'baton-webhook-id',
  TIMESTAMP: 'baton-webhook-timestamp',
  SIGNATURE: 'baton-webhook-signature',
} as const;

/** The CloudEvent of a notification; its `id` is the idempotency key, the same on every retry. */
export function cloudEventOf(input: NotifyInput, serviceUrl: string | undefined, now: Date) {
  return {
    specversion: '1.0',
    id: input.key,
    source: `baton:chain/${input.workflowId}`,
    type: `dev.baton.${input.kind}`,
    subject: input.approval.handoffId,
    time: now.toISOString(),
    datacontenttype: 'application/json',
    data: eventData(input, cardUrl(serviceUrl, input)),
  };
}

/** `v1=<hex>`: HMAC-SHA256 of `<timestamp>.<body>` under `secret`. */
export function webhookSignature(secret: string, timestamp: string, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** POST the event to `url`; throws on a network failure or an answer other than 2xx, so the activity retries. */
export async function sendWebhook(
  url: string,
  secret: string,
  event: ReturnType<typeof cloudEventOf>,
  signal?: AbortSignal,
): Promise<void> {
  const body = JSON.stringify(event);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/cloudevents+json; charset=utf-8',
      'idempotency-key': event.id,
      [WebhookHeaders.ID]: event.id,
      [WebhookHeaders.TIMESTAMP]: timestamp,
      [WebhookHeaders.SIGNATURE]: webhookSignature(secret, timestamp, body),
    },
    body,
    signal: signal ?? AbortSignal.timeout(10_000),
  });
  await res.body?.cancel();
  if (!res.ok) throw new Error(`the webhook ${new URL(url).host} answered ${res.status}`);
}
