import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool, scripted, Team, TeamValidationError } from '../../src';
import { UserError } from '../../src/workflow';

const model = scripted([{ text: 'ok' }]);
const agent = (id: string, extra: Partial<Parameters<typeof defineAgent>[0]> = {}) =>
  defineAgent({ id, instructions: `You are ${id}.`, model, ...extra });
const tool = (name: string) => defineTool({ name, description: name, parameters: z.object({}), execute: () => name });

describe('defineAgent', () => {
  it('defaults name and description from the id', () => {
    const a = agent('triage');
    expect(a).toMatchObject({ id: 'triage', name: 'triage', description: 'triage', tools: [] });
  });

  it('rejects invalid ids, empty instructions and unknown providers, naming each problem', () => {
    expect(() => agent('1abc')).toThrow(/must start with a letter/);
    expect(() => agent('a b')).toThrow(UserError);
    expect(() => agent('ok', { instructions: '' })).toThrow(/instructions/);
    expect(() => agent('ok', { model: { provider: 'no such!', model: 'x' } as never })).toThrow(
      /must name a model provider \("openai", "scripted", or one the worker registers\)/,
    );
  });
});

describe('Team', () => {
  it('registers agents and answers their handoff targets', () => {
    const team = new Team().register(agent('a'), agent('b', { handoffs: ['a', 'b'] }), agent('c'));
    expect(team.ids).toEqual(['a', 'b', 'c']);
    expect(team.targets(team.get('a')!)).toEqual(['b', 'c']);
    expect(team.targets(team.get('b')!)).toEqual(['a', 'b']);
  });

  it('rejects duplicate ids', () => {
    expect(() => new Team([agent('a'), agent('a')])).toThrow(/duplicate agent id "a"/);
    const team = new Team([agent('a')]);
    expect(() => team.register(agent('a'))).toThrow(TeamValidationError);
  });

  it('rejects unknown handoff targets, naming the agent, the target and what is registered', () => {
    const err = (() => {
      try {
        new Team([agent('a', { handoffs: ['ghost'] }), agent('b')]);
      } catch (e) {
        return e as TeamValidationError;
      }
    })();
    expect(err).toBeInstanceOf(TeamValidationError);
    expect(err?.problems).toEqual([
      'agent "a" lists handoff target "ghost", which is not registered (registered: a, b)',
    ]);
  });

  it('rejects two tools with one name on an agent', () => {
    expect(() => new Team([agent('a', { tools: [tool('x'), tool('x')] })])).toThrow(/two tools named "x"/);
  });

  it('reports every problem at once', () => {
    try {
      new Team([agent('a', { handoffs: ['x'] }), agent('a', { handoffs: ['y'] })]);
      expect.unreachable();
    } catch (e) {
      expect((e as TeamValidationError).problems).toHaveLength(3);
    }
  });

  it('snapshots a serializable spec with a handoff tool for teams of two or more', () => {
    const spec = new Team([agent('a', { tools: [tool('x')] }), agent('b')]).spec();
    expect(JSON.parse(JSON.stringify(spec))).toEqual(spec);
    expect(spec.agents.a?.handoffTool?.name).toBe('handoff');
    expect(spec.agents.a?.tools.map((t) => t.name)).toEqual(['x']);
    expect(spec.agents.a?.handoffs).toEqual(['b']);
  });

  it('gives a single agent no handoff tool', () => {
    const spec = new Team([agent('solo')]).spec();
    expect(spec.agents.solo?.handoffTool).toBeUndefined();
    expect(spec.agents.solo?.handoffs).toEqual([]);
  });

  it('refuses to snapshot an empty team', () => {
    expect(() => new Team().spec()).toThrow(/no agents/);
  });
});
