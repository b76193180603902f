import { describe, expect, it } from 'vitest';
import { defineAgent, delegate, remoteAgent, scripted, Team, TeamValidationError } from '../../src';
import { UserError } from '../../src/workflow';
import { teamSpecCheck } from '../../src/common/teamChecks';
import { TeamPart } from '../../src/common/version';

const model = scripted([{ text: 'ok' }]);
const agent = (id: string, extra: Partial<Parameters<typeof defineAgent>[0]> = {}) =>
  defineAgent({ id, instructions: `You are ${id}.`, model, ...extra });
const billing = (extra: Partial<Parameters<typeof remoteAgent>[0]> = {}) =>
  remoteAgent({
    id: 'billing',
    url: 'https://billing.example.com/a2a',
    description: 'Refunds and invoices',
    auth: { token: 'secret-token-1' },
    ...extra,
  });

describe('remoteAgent', () => {
  it('takes an endpoint or an Agent Card URL, and refuses anything else naming each problem', () => {
    expect(billing().spec).toEqual({
      id: 'billing',
      description: 'Refunds and invoices',
      url: 'https://billing.example.com/a2a',
      auth: 'bearer',
    });
    expect(
      remoteAgent({ id: 'billing', card: 'http://127.0.0.1:8080/.well-known/agent-card.json', agent: 'triage' }).spec,
    ).toEqual({
      id: 'billing',
      description: 'billing',
      card: 'http://127.0.0.1:8080/.well-known/agent-card.json',
      agent: 'triage',
    });
    expect(() => remoteAgent({ id: 'billing' })).toThrow(
      /give exactly one of url \(its A2A JSON-RPC endpoint\) and card/,
    );
    expect(() => billing({ card: 'https://billing.example.com/card.json' })).toThrow(/exactly one of url/);
    expect(() => billing({ url: 'ftp://billing.example.com/a2a' })).toThrow(
      /url must be an http or https URL, got "ftp:/,
    );
    expect(() => billing({ url: 'not a url' })).toThrow(UserError);
    expect(() => billing({ id: '1billing' })).toThrow(/id "1billing" must start with a letter/);
    expect(() => billing({ auth: { token: '' } })).toThrow(/auth.token must be a non-empty string or a function/);
    expect(() => billing({ agent: 'no such agent' })).toThrow(/agent must be an agent id of the remote team/);
  });

  it('sends its token as a bearer token, from a function at each call', async () => {
    expect(await billing().headers()).toEqual({ authorization: 'Bearer secret-token-1' });
    let n = 0;
    expect(await billing({ auth: { token: () => `token-${++n}` } }).headers()).toEqual({
      authorization: 'Bearer token-1',
    });
    expect(await remoteAgent({ id: 'open', url: 'http://127.0.0.1:1/a2a' }).headers()).toEqual({});
    await expect(billing({ auth: { token: () => '' } }).headers()).rejects.toThrow(/gave no token/);
  });
});

describe('a team with remote agents', () => {
  it('offers a remote agent in the delegate tool and records where its tasks go, never its token', () => {
    const team = new Team([agent('desk', { handoffs: [delegate('billing', { timeout: '5 minutes' })] })], {
      remotes: [billing()],
    });
    const spec = team.spec();
    expect(spec.remotes).toEqual({ billing: billing().spec });
    expect(JSON.stringify(spec)).not.toContain('secret-token-1');
    expect(spec.agents.desk!.delegates).toEqual(['billing']);
    expect(spec.agents.desk!.delegateTool!.description).toContain('- billing: Refunds and invoices');
    expect(spec.version!.parts[TeamPart.remote('desk', 'billing')]).toMatch(/^[0-9a-f]{16}$/);
    expect(teamSpecCheck(spec, 'team')).toEqual([]);
    expect(team.remotes.get('billing')?.spec.url).toBe('https://billing.example.com/a2a');
    // Another endpoint is another team version: a worker with the old one refuses the calls.
    const moved = new Team([agent('desk', { handoffs: [delegate('billing', { timeout: '5 minutes' })] })], {
      remotes: [billing({ url: 'https://billing-2.example.com/a2a' })],
    }).spec();
    expect(moved.version!.hash).not.toBe(spec.version!.hash);
    // A team without remote agents records none.
    expect(new Team([agent('desk')]).spec()).not.toHaveProperty('remotes');
  });

  it('refuses handoffs to a remote agent, ids it shares with an agent, duplicates and what remoteAgent() did not make', () => {
    const problems = (build: () => unknown) => {
      try {
        build();
      } catch (err) {
        expect(err).toBeInstanceOf(TeamValidationError);
        return (err as TeamValidationError).problems;
      }
      return [];
    };
    expect(problems(() => new Team([agent('desk', { handoffs: ['billing'] })], { remotes: [billing()] }))).toEqual([
      'agent "desk" lists handoff target "billing", a remote agent: a remote agent answers tasks delegated to it, so declare delegate("billing")',
    ]);
    expect(problems(() => new Team([agent('billing')], { remotes: [billing()] }))).toEqual([
      'remote agent "billing" has the id of an agent of the team',
    ]);
    expect(problems(() => new Team([agent('desk')], { remotes: [billing(), billing()] }))).toEqual([
      'duplicate remote agent id "billing"',
    ]);
    expect(problems(() => new Team([agent('desk')], { remotes: [{ id: 'billing', url: 'x' } as never] }))).toEqual([
      'every remote must be made with remoteAgent()',
    ]);
    expect(problems(() => new Team([agent('desk', { handoffs: [delegate('billing')] })]))).toEqual([
      expect.stringContaining('lists handoff target "billing", which is not registered'),
    ]);
  });

  it("checks a snapshot's remote agents as the workflow takes them from outside", () => {
    const spec = new Team([agent('desk', { handoffs: [delegate('billing')] })], { remotes: [billing()] }).spec();
    expect(
      teamSpecCheck({ ...spec, remotes: { billing: { id: 'billing', description: 1, auth: 'basic' } } }, 'team'),
    ).toEqual([expect.stringContaining('description'), expect.stringContaining('auth')]);
  });
});
