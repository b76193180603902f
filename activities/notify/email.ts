/**
 * Email: one message per recipient the approval asks (nodemailer over SMTP), linking to the
 * approval's card and, when the team allows, carrying that recipient's signed one-time approve and
 * reject links.
 */
import { createHash } from 'node:crypto';
import nodemailer from 'nodemailer';
import type { DecisionLinks, EmailChannel, EmailRecipient } from '../../src/agents/notifications';
import { durationMs } from '../../src/common/check';
import type { NotifyInput } from '../../src/common/notifications';
import { issueLink } from './links';
import { approversOf, cardUrl, summaryOf } from './message';

/** Links last a week unless the team says otherwise. */
const DEFAULT_LINK_TTL_MS = 7 * 24 * 3600_000;

/** The recipients of `input`: those whose identity the approval names (everyone, when it names none). */
export function recipientsOf(channel: EmailChannel, input: NotifyInput): EmailRecipient[] {
  const approvers = approversOf(input);
  return channel.to.filter((r) => !approvers || approvers.includes(r.identity));
}

/** The message to `to`. */
export function emailOf(
  channel: EmailChannel,
  input: NotifyInput,
  to: EmailRecipient,
  serviceUrl: string | undefined,
  links: DecisionLinks | undefined,
) {
  const summary = summaryOf(input);
  const card = cardUrl(serviceUrl, input);
  const decide = links && serviceUrl ? linksFor(links, serviceUrl, input, to.identity) : undefined;
  const lines = [
    summary,
    '',
    `Chain: ${input.workflowId}`,
    `Approval: ${input.approval.handoffId}`,
    ...(input.approval.expiresAt ? [`Decide by: ${input.approval.expiresAt}`] : []),
    ...(card ? ['', `Open the card: ${card}`] : []),
    ...(decide
      ? [
          '',
          `Approve as ${to.identity}: ${decide.approve}`,
          `Reject as ${to.identity}: ${decide.reject}`,
          '',
          'Each link works once.',
        ]
      : []),
  ];
  const anchor = (href: string, text: string) => `<a href="${escapeHtml(href)}">${escapeHtml(text)}</a>`;
  const html = [
    `<p>${escapeHtml(summary)}</p>`,
    `<p>Chain <code>${escapeHtml(input.workflowId)}</code>, approval <code>${escapeHtml(input.approval.handoffId)}</code></p>`,
    ...(card ? [`<p>${anchor(card, 'Open the card')}</p>`] : []),
    ...(decide
      ? [
          `<p>${anchor(decide.approve, `Approve as ${to.identity}`)} · ${anchor(decide.reject, `Reject as ${to.identity}`)} (each link works once)</p>`,
        ]
      : []),
  ].join('\n');
  return {
    from: channel.from,
    to: to.address,
    subject: summary.length > 120 ? `${summary.slice(0, 119)}…` : summary,
    // The same id on every retry, so a mail system that sees a message twice can tell.
    messageId: `<${createHash('sha256').update(`${input.key}\n${to.address}`).digest('hex').slice(0, 32)}@baton>`,
    headers: {
      'X-Baton-Idempotency-Key': input.key,
      'X-Baton-Chain': input.workflowId,
      'X-Baton-Approval': input.approval.handoffId,
    },
    text: lines.join('\n'),
    html,
  };
}

/** Send `message` through the channel's SMTP server; throws when the server does not take it. */
export async function sendEmail(channel: EmailChannel, message: ReturnType<typeof emailOf>): Promise<void> {
  const { host, port, secure, user, password } = channel.smtp;
  const transport = nodemailer.createTransport({
    host,
    port,
    secure: secure ?? port === 465,
    ...(user ? { auth: { user, pass: password ?? '' } } : {}),
    connectionTimeout: 10_000,
    socketTimeout: 20_000,
  });
  try {
    await transport.sendMail(message);
  } finally {
    transport.close();
  }
}

function linksFor(links: DecisionLinks, serviceUrl: string, input: NotifyInput, identity: string) {
  const ttl = (links.ttl !== undefined ? durationMs(links.ttl) : undefined) ?? DEFAULT_LINK_TTL_MS;
  const base = {
    workflowId: input.workflowId,
    approvalId: input.approval.handoffId,
    identity,
    ...(input.approval.tool ? { callHash: input.approval.tool.callHash } : {}),
    expiresAt: Date.now() + ttl,
  };
  const url = (token: string) => `${serviceUrl.replace(/\/+$/, '')}/v1/links/${token}`;
  return {
    approve: url(issueLink(links.secret, { ...base, decision: 'approve' })),
    reject: url(issueLink(links.secret, { ...base, decision: 'reject' })),
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
