/**
 * What `baton serve` needs to take decisions from notifications: the secret decision links are
 * signed with, and Slack's signing secret with the map from Slack users to baton identities.
 */

/** Decisions from notifications. */
export interface NotificationServiceOptions {
  /** The secret the team's `notifications.links.secret` signs email links with (`BATON_LINK_SECRET`). @default none: links are refused */
  linkSecret?: string;
  /** Slack interactions (`POST /v1/slack/interactions`). @default none: the route answers 404 */
  slack?: SlackInteractionOptions;
}

/** Slack's interactions. */
export interface SlackInteractionOptions {
  /** The Slack app's signing secret (`BATON_SLACK_SIGNING_SECRET`). */
  signingSecret: string;
  /** Slack user ids to the baton identities they decide as, e.g. `{"U024BE7LH": "alice"}` (`BATON_SLACK_USERS`). Unmapped users are refused. */
  users: Record<string, string>;
}

/** Problems with `o`, each naming the field and what would be valid. */
export function notificationServiceProblems(o: NotificationServiceOptions): string[] {
  const problems: string[] = [];
  if (o.linkSecret !== undefined && (typeof o.linkSecret !== 'string' || o.linkSecret.length < 32))
    problems.push('notifications.linkSecret (BATON_LINK_SECRET) must be 32 characters or more');
  if (o.slack !== undefined) {
    if (typeof o.slack.signingSecret !== 'string' || o.slack.signingSecret.length < 8)
      problems.push(
        "notifications.slack.signingSecret (BATON_SLACK_SIGNING_SECRET) must be the Slack app's signing secret",
      );
    const users = o.slack.users as unknown;
    if (
      typeof users !== 'object' ||
      users === null ||
      Array.isArray(users) ||
      Object.values(users).some((v) => typeof v !== 'string' || v === '')
    ) {
      problems.push(
        'notifications.slack.users (BATON_SLACK_USERS) must map Slack user ids to identities, e.g. {"U024BE7LH": "alice"}',
      );
    }
  }
  return problems;
}

/** The options `baton serve` reads from `BATON_LINK_SECRET`, `BATON_SLACK_SIGNING_SECRET` and `BATON_SLACK_USERS` (JSON); none when none is set. */
export function notificationServiceOptionsFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): NotificationServiceOptions | undefined {
  const linkSecret = env.BATON_LINK_SECRET || undefined;
  const signingSecret = env.BATON_SLACK_SIGNING_SECRET || undefined;
  if (!linkSecret && !signingSecret) return undefined;
  let users: Record<string, string> = {};
  if (signingSecret) {
    try {
      users = JSON.parse(env.BATON_SLACK_USERS ?? '{}') as Record<string, string>;
    } catch {
      throw new Error(
        'BATON_SLACK_USERS must be JSON mapping Slack user ids to identities, e.g. {"U024BE7LH": "alice"}',
      );
    }
  }
  return { ...(linkSecret ? { linkSecret } : {}), ...(signingSecret ? { slack: { signingSecret, users } } : {}) };
}
