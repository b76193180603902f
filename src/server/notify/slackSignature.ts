/**
 * Slack's request signatures: `X-Slack-Signature` is `v0=` and the hex HMAC-SHA256 of
 * `v0:<X-Slack-Request-Timestamp>:<raw body>` under the app's signing secret; requests older than
 * five minutes are refused, so a captured request cannot be replayed later.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far a request's timestamp may be from now. */
export const SLACK_MAX_AGE_S = 5 * 60;

/** The signature Slack sends for `body` at `timestamp` (seconds). */
export function slackSignature(signingSecret: string, timestamp: string, body: string): string {
  return `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

/** Why a request is not Slack's, or `undefined` when it is. */
export function slackRequestProblem(
  signingSecret: string,
  signature: string | undefined,
  timestamp: string | undefined,
  body: string,
  nowMs = Date.now(),
): string | undefined {
  if (!signature || !timestamp) return 'X-Slack-Signature and X-Slack-Request-Timestamp are required';
  if (!/^\d{1,12}$/.test(timestamp)) return 'X-Slack-Request-Timestamp must be a Unix time in seconds';
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > SLACK_MAX_AGE_S)
    return `the request's timestamp is more than ${SLACK_MAX_AGE_S / 60} minutes from now: refused as a possible replay`;
  const expected = Buffer.from(slackSignature(signingSecret, timestamp, body));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return 'X-Slack-Signature does not match the request';
  return undefined;
}
