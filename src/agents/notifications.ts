/**
 * A team's notification channels: where the people who decide its approvals are told that one
 * waits (webhooks, email, a Slack incoming webhook). The configuration lives with the team on the
 * worker, secrets included; the snapshot records only which kinds of channel there are.
 */
import { durationMs } from '../common/check';
import { ChannelKind, type NotificationsSpec } from '../common/notifications';

/** A webhook: CloudEvents 1.0 JSON POSTed to `url`, signed with HMAC-SHA256 under `secret` (docs/notifications.md). */
export interface WebhookChannel {
  url: string;
  /** The HMAC key, 16 characters or more, shared with the receiver. */
  secret: string;
}

/** A person email reaches, and the identity approvals know them by. */
export interface EmailRecipient {
  address: string;
  /** The approver's name as policies' `approvers` list it; their links decide as this identity. */
  identity: string;
}

/** Email through an SMTP server. */
export interface EmailChannel {
  smtp: { host: string; port: number; secure?: boolean; user?: string; password?: string };
  /** The sender, e.g. `"baton" <baton@example.com>`. */
  from: string;
  /** Who is told; of them, only those an approval's `approvers` name (all, when it names none). */
  to: EmailRecipient[];
}

/** A Slack incoming webhook; the buttons' clicks come back to `baton serve` at `POST /v1/slack/interactions`. */
export interface SlackChannel {
  webhookUrl: string;
}

/** Signed one-time approve and reject links in email. */
export interface DecisionLinks {
  /** The HMAC key shared with `baton serve` (its `BATON_LINK_SECRET`), 32 characters or more. */
  secret: string;
  /** How long a link works. @default "7d" */
  ttl?: string;
}

/** A team's notification channels. */
export interface NotificationOptions {
  webhooks?: WebhookChannel[];
  email?: EmailChannel;
  slack?: SlackChannel;
  /** Where `baton serve` is reached by approvers, e.g. `https://baton.example.com`: cards and links point there. */
  serviceUrl?: string;
  /** Approve and reject links in email, when the team allows them. @default none */
  links?: DecisionLinks;
}

/** Every problem of `o` as notification options, each naming the field and what would be valid. */
export function notificationProblems(o: NotificationOptions): string[] {
  const problems: string[] = [];
  const url = (value: unknown, where: string) => {
    if (typeof value !== 'string' || !/^https?:\/\/[^\s/]+/.test(value))
      problems.push(`${where} must be an http(s) URL, got ${JSON.stringify(value)}`);
  };
  if (o.webhooks !== undefined && !Array.isArray(o.webhooks))
    problems.push('notifications.webhooks must be a list of {url, secret}');
  (Array.isArray(o.webhooks) ? o.webhooks : []).forEach((w, i) => {
    url(w?.url, `notifications.webhooks[${i}].url`);
    if (typeof w?.secret !== 'string' || w.secret.length < 16)
      problems.push(`notifications.webhooks[${i}].secret must be a string of 16 characters or more`);
  });
  if (o.email !== undefined) problems.push(...emailProblems(o.email));
  if (o.slack !== undefined) url(o.slack?.webhookUrl, 'notifications.slack.webhookUrl');
  if (o.serviceUrl !== undefined) url(o.serviceUrl, 'notifications.serviceUrl');
  if (o.links !== undefined) {
    if (typeof o.links?.secret !== 'string' || o.links.secret.length < 32)
      problems.push(
        "notifications.links.secret must be a string of 32 characters or more (the service's BATON_LINK_SECRET)",
      );
    if (o.links?.ttl !== undefined && !validDuration(o.links.ttl))
      problems.push(
        `notifications.links.ttl must be a duration such as "30m" or "7d", got ${JSON.stringify(o.links.ttl)}`,
      );
    if (!o.email) problems.push('notifications.links needs notifications.email: links go out by email');
    if (o.serviceUrl === undefined)
      problems.push('notifications.links needs notifications.serviceUrl: the links point at baton serve');
  }
  if (!o.webhooks?.length && !o.email && !o.slack)
    problems.push('notifications needs at least one channel: webhooks, email or slack');
  return problems;
}

function emailProblems(e: EmailChannel): string[] {
  const problems: string[] = [];
  if (typeof e?.smtp?.host !== 'string' || e.smtp.host === '')
    problems.push('notifications.email.smtp.host must name the SMTP server');
  if (!Number.isInteger(e?.smtp?.port) || e.smtp.port < 1 || e.smtp.port > 65535)
    problems.push(
      `notifications.email.smtp.port must be a port number (1–65535), got ${JSON.stringify(e?.smtp?.port)}`,
    );
  if (typeof e?.from !== 'string' || !e.from.includes('@'))
    problems.push(`notifications.email.from must be an address, got ${JSON.stringify(e?.from)}`);
  if (!Array.isArray(e?.to) || e.to.length === 0)
    problems.push('notifications.email.to must list recipients as {address, identity}');
  (Array.isArray(e?.to) ? e.to : []).forEach((r, i) => {
    if (typeof r?.address !== 'string' || !/^[^\s@]+@[^\s@]+$/.test(r.address))
      problems.push(`notifications.email.to[${i}].address must be an email address, got ${JSON.stringify(r?.address)}`);
    if (typeof r?.identity !== 'string' || r.identity === '')
      problems.push(`notifications.email.to[${i}].identity must name the approver the address belongs to`);
  });
  return problems;
}

function validDuration(value: string): boolean {
  return durationMs(value) !== undefined;
}

/** What the team snapshot records of `o`: the kinds of channel, and whether email carries links. */
export function notificationsSpec(o: NotificationOptions): NotificationsSpec {
  const channels = [
    ...(o.webhooks?.length ? [ChannelKind.WEBHOOK] : []),
    ...(o.email ? [ChannelKind.EMAIL] : []),
    ...(o.slack ? [ChannelKind.SLACK] : []),
  ];
  return { channels, ...(o.links ? { links: true } : {}) };
}
