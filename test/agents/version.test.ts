import { describe, expect, it } from 'vitest';
import { redeployTeam } from '../../drill/redeploy/team';
import { Team, TeamValidationError } from '../../src';
import { diffTeams, formatTeamDiff, teamVersion } from '../../src/agents';
import { missingFor } from '../../src/agents/version';
import { scriptedAgent } from '../helpers/agents';

describe('team versions', () => {
  it('are a stable fingerprint of the spec: the same team twice hashes alike, any change that a run depends on does not', () => {
    const a = redeployTeam('v1').spec();
    const b = redeployTeam('v1').spec();
    expect(a.version).toEqual(b.version);
    expect(a.version).toMatchObject({
      id: 'support@v1',
      name: 'support',
      label: 'v1',
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(redeployTeam('v2').spec().version!.hash).not.toBe(a.version!.hash);
    // Key order and the worker's own facts (its hooks) do not change the version.
    expect(
      teamVersion(
        { ...a, hasHandoffListeners: true, agents: Object.fromEntries(Object.entries(a.agents).reverse()) },
        { name: 'support', label: 'v1' },
      ),
    ).toEqual(a.version);
    const changed = { ...a, agents: { ...a.agents, triage: { ...a.agents.triage!, instructions: 'Something else.' } } };
    expect(teamVersion(changed, { name: 'support' }).hash).not.toBe(a.version!.hash);
  });

  it('show the hash when the team has no label, and refuse names and labels that cannot go into an id', () => {
    const v = new Team([scriptedAgent('a', [{ text: 'hi' }])]).version;
    expect(v.id).toBe(`team@${v.hash.slice(0, 12)}`);
    expect(() => new Team([scriptedAgent('a', [])], { name: 'my team' })).toThrow(TeamValidationError);
    expect(() => new Team([scriptedAgent('a', [])], { version: '' })).toThrow(/team version must be 1 to 64 letters/);
  });

  it('fingerprint the parts a worker runs: tools by name and parameters, answer contracts, per agent', () => {
    const v1 = redeployTeam('v1').spec().version!;
    const v2 = redeployTeam('v2').spec().version!;
    expect(Object.keys(v1.parts)).toEqual(
      expect.arrayContaining([
        'tool:refunds/issueRefund',
        'tool:triage/lookupOrder',
        'tool:billing/invoiceLookup',
        'answer:sales',
      ]),
    );
    expect(v2.parts['tool:billing/invoiceLookup']).toBe(v1.parts['tool:billing/invoiceLookup']);
    expect(v2.parts['tool:triage/lookupOrder']).not.toBe(v1.parts['tool:triage/lookupOrder']);
    expect(v2.parts['answer:triage']).toBe(v1.parts['answer:triage']);
  });
});

describe('what a worker lacks for a step', () => {
  const v1 = redeployTeam('v1').spec().version!;
  const worker = { version: redeployTeam('v2').spec().version!, providers: ['scripted', 'openai'] };
  const need = (key: string) => ({ version: v1.id, parts: { [key]: v1.parts[key]! } });

  it('names a missing agent, a missing tool, a tool whose parameters changed, a provider and a whole team', () => {
    expect(missingFor(need('answer:sales'), worker)).toEqual(['agent "sales"']);
    expect(missingFor(need('tool:refunds/issueRefund'), worker)).toEqual(['tool "issueRefund" of agent "refunds"']);
    expect(missingFor(need('tool:triage/lookupOrder'), worker)).toEqual([
      'tool "lookupOrder" of agent "triage" as team support@v1 has it (this worker\'s differs)',
    ]);
    expect(missingFor({ version: v1.id, provider: 'anthropic' }, worker)).toEqual(['model provider "anthropic"']);
    expect(missingFor({ version: v1.id, hash: v1.hash }, worker)).toHaveLength(1);
  });

  it('finds nothing missing when the worker has the part as recorded, or when only existence is asked', () => {
    expect(missingFor(need('tool:billing/invoiceLookup'), worker)).toEqual([]);
    expect(missingFor(need('answer:triage'), worker)).toEqual([]);
    expect(missingFor({ version: '(unversioned)', parts: { 'tool:triage/lookupOrder': '' } }, worker)).toEqual([]);
    expect(missingFor(undefined, worker)).toEqual([]);
  });
});

describe('diffTeams', () => {
  it('lists agents removed, instructions changed, tools renamed, parameters changed and handoffs changed', () => {
    const diff = diffTeams(redeployTeam('v1').spec(), redeployTeam('v2').spec());
    expect(diff).toMatchObject({ from: 'support@v1', to: 'support@v2', same: false });
    const kinds = diff.changes.map((c) => [c.kind, c.agent, c.tool ?? c.field ?? ''].join(' '));
    expect(kinds).toEqual(
      expect.arrayContaining([
        'agent_removed sales ',
        'instructions_changed triage ',
        'tool_renamed refunds refundOrder',
        'tool_schema_changed triage lookupOrder',
        'handoffs_changed triage ',
      ]),
    );
    expect(diff.changes.find((c) => c.kind === 'tool_renamed')).toMatchObject({ from: 'issueRefund' });
    expect(diff.changes.find((c) => c.kind === 'tool_schema_changed')?.text).toContain('+region (required)');
    expect(formatTeamDiff(diff)[0]).toMatch(/^support@v1 → support@v2: \d+ change\(s\)$/);
  });

  it('says two equal teams are the same', () => {
    const diff = diffTeams(redeployTeam('v2').spec(), redeployTeam('v2').spec());
    expect(diff).toMatchObject({ same: true, changes: [] });
    expect(formatTeamDiff(diff)).toEqual(['support@v2 → support@v2: no changes']);
  });
});
