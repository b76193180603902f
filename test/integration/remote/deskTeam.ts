/**
 * The delegating team of the remote-delegation tests: `desk` delegates to the remote agents of the
 * team `baton serve` serves at `REMOTE_URL` (see ./remoteTeam.ts), with `REMOTE_TOKEN`, and answers
 * with what they said. A team module for `baton worker --team`, and a team for workers in the test.
 */
import { defineAgent, delegate, remoteAgent, scripted, Team } from '../../../src';

/** The team, for the remote service at `url` with `token` (`outsider` with a token the remote does not know). */
export function deskTeam(url: string, token: string): Team {
  const remote = (id: string, agent: string, auth = token) =>
    remoteAgent({ id, url: `${url}/a2a`, agent, description: `the remote team's ${agent}`, auth: { token: auth } });
  // Found through its Agent Card rather than by its endpoint.
  const broken = remoteAgent({
    id: 'broken',
    card: `${url}/.well-known/agent-card.json`,
    agent: 'broken',
    auth: { token },
  });
  const call = (to: string) => ({
    toolCalls: [
      {
        name: 'delegate',
        arguments: { to, task: 'Refund order 42: it arrived broken.', reason: 'the billing team refunds orders' },
      },
    ],
  });
  return new Team(
    [
      defineAgent({
        id: 'desk',
        instructions: 'You are the front desk.',
        model: scripted({
          steps: [call('billing')],
          rules: [
            { whenIncludes: 'Answer from billing: Refunded order 42.', reply: { text: 'Billing refunded order 42.' } },
            { whenIncludes: 'failed', reply: { text: 'Billing could not help.' } },
          ],
        }),
        handoffs: [delegate('billing')],
      }),
      defineAgent({
        id: 'strict',
        instructions: 'You delegate and fail with it.',
        model: scripted([call('broken')]),
        handoffs: [delegate('broken', { onFailure: 'fail' })],
      }),
      defineAgent({
        id: 'hasty',
        instructions: 'You wait a little.',
        model: scripted({
          steps: [call('billing')],
          rules: [{ whenIncludes: 'failed', reply: { text: 'Too slow.' } }],
        }),
        handoffs: [delegate('billing', { timeout: '4 seconds' })],
      }),
      defineAgent({
        id: 'stranger',
        instructions: 'You have the wrong token.',
        model: scripted({
          steps: [call('outsider')],
          rules: [{ whenIncludes: 'failed', reply: { text: 'Refused.' } }],
        }),
        handoffs: [delegate('outsider')],
      }),
    ],
    { remotes: [remote('billing', 'billing'), broken, remote('outsider', 'billing', 'not-a-token-of-the-remote')] },
  );
}

export const team = deskTeam(process.env.REMOTE_URL ?? 'http://127.0.0.1:1', process.env.REMOTE_TOKEN ?? 'no-token');
