/** A team's notification channels are validated when it is built; the snapshot records their kinds only. */
import { describe, expect, it } from 'vitest';
import { Team } from '../../src/agents/team';
import { TeamValidationError } from '../../src/common/errors';
import { teamSpecCheck } from '../../src/common/teamChecks';
import { issueLink, type LinkRefusedError, verifyLink } from '../../activities/notify';
import { slackRequestProblem, slackSignature } from '../../src/server/notify/slackSignature';
import { notificationServiceProblems } from '../../src/server/notify/options';
import { scriptedAgent } from '../helpers/agents';

const agent = () => scriptedAgent('a', [{ text: 'hi' }]);

function problems(notifications: unknown): string[] {
  try {
    new Team([agent()], { notifications: notifications as never });
    return [];
  } catch (err) {
    expect(err).toBeInstanceOf(TeamValidationError);
    return (err as TeamValidationError).problems;
  }
}

describe('notification channels', () => {
  it('refuse bad configuration naming each field and what would be valid', () => {
    expect(problems({})).toEqual(['notifications needs at least one channel: webhooks, email or slack']);
    expect(problems({ webhooks: [{ url: 'ftp://x', secret: 'short' }] })).toEqual([
      'notifications.webhooks[0].url must be an http(s) URL, got "ftp://x"',
      'notifications.webhooks[0].secret must be a string of 16 characters or more',
    ]);
    expect(
      problems({ email: { smtp: { host: '', port: 70000 }, from: 'nobody', to: [{ address: 'x', identity: '' }] } }),
    ).toEqual([
      'notifications.email.smtp.host must name the SMTP server',
      'notifications.email.smtp.port must be a port number (1–65535), got 70000',
      'notifications.email.from must be an address, got "nobody"',
      'notifications.email.to[0].address must be an email address, got "x"',
      'notifications.email.to[0].identity must name the approver the address belongs to',
    ]);
    expect(
      problems({ slack: { webhookUrl: 'https://hooks.slack.com/x' }, links: { secret: 'too short', ttl: 'soon' } }),
    ).toEqual([
      "notifications.links.secret must be a string of 32 characters or more (the service's BATON_LINK_SECRET)",
      'notifications.links.ttl must be a duration such as "30m" or "7d", got "soon"',
      'notifications.links needs notifications.email: links go out by email',
      'notifications.links needs notifications.serviceUrl: the links point at baton serve',
    ]);
    expect(
      notificationServiceProblems({ linkSecret: 'x', slack: { signingSecret: 's', users: { U1: 7 } as never } }),
    ).toHaveLength(3);
  });

  it('record only the kinds of channel in the snapshot, which the workflow checks', () => {
    const team = new Team([agent()], {
      notifications: {
        webhooks: [{ url: 'https://h.example/x', secret: 'a-secret-of-16-chars' }],
        slack: { webhookUrl: 'https://hooks.example/y' },
      },
    });
    const spec = team.spec();
    expect(spec.notifications).toEqual({ channels: ['webhook', 'slack'] });
    expect(JSON.stringify(spec)).not.toContain('a-secret-of-16-chars');
    expect(teamSpecCheck(spec, 'team')).toEqual([]);
    expect(teamSpecCheck({ ...spec, notifications: { channels: ['pager'] } } as never, 'team')).toEqual([
      '"team.notifications.channels[0]" must be "webhook" or "email" or "slack", got "pager"',
    ]);
    // Channels change no behaviour of the chain: the team's version is the same without them.
    expect(spec.version).toEqual(new Team([agent()]).spec().version);
  });

  it('links verify only as issued and until they expire; Slack signatures only with the secret and within five minutes', () => {
    const secret = 'link-secret-0123456789-0123456789-x';
    const token = issueLink(secret, {
      workflowId: 'w',
      approvalId: 'a',
      decision: 'reject',
      identity: 'alice',
      expiresAt: Date.now() + 60_000,
    });
    expect(verifyLink(secret, token)).toMatchObject({
      workflowId: 'w',
      approvalId: 'a',
      decision: 'reject',
      identity: 'alice',
      id: expect.any(String),
    });
    const refusal = (t: string, now?: number) => {
      try {
        verifyLink(secret, t, now);
        return 'verified';
      } catch (err) {
        return (err as LinkRefusedError).problem;
      }
    };
    expect(refusal(token, Date.now() + 120_000)).toBe('expired');
    expect(refusal(`${Buffer.from('{"decision":"approve"}').toString('base64url')}.${token.split('.')[1]}`)).toBe(
      'forged',
    );
    expect(refusal('nonsense')).toBe('malformed');
    const ts = String(Math.floor(Date.now() / 1000));
    expect(slackRequestProblem('s3cret', slackSignature('s3cret', ts, 'payload=x'), ts, 'payload=x')).toBeUndefined();
    expect(slackRequestProblem('s3cret', slackSignature('other', ts, 'payload=x'), ts, 'payload=x')).toBe(
      'X-Slack-Signature does not match the request',
    );
    const old = String(Math.floor(Date.now() / 1000) - 301);
    expect(slackRequestProblem('s3cret', slackSignature('s3cret', old, 'payload=x'), old, 'payload=x')).toMatch(
      /more than 5 minutes/,
    );
  });
});
