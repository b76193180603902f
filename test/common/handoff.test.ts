import { describe, expect, it } from 'vitest';
import { extractHandoff, isHandoffResult, type HandoffResult } from '../../src/agents';

describe('isHandoffResult', () => {
  it('accepts a handoff result', () => {
    const h: HandoffResult = { kind: 'handoff', from: 'researcher', to: 'writer', message: 'findings' };
    expect(isHandoffResult(h)).toBe(true);
  });
  it.each([
    null,
    undefined,
    'handoff',
    { to: 'writer', message: 'x' },
    { kind: 'other', to: 'writer' },
    { kind: 'handoff', to: 1, from: 'a', message: '' },
  ])('rejects %j', (value) => expect(isHandoffResult(value)).toBe(false));
});

describe('extractHandoff', () => {
  const call = (name: string, args: string) => ({ id: 'c1', name, arguments: args });

  it('reads a handoff call', () => {
    expect(extractHandoff(call('handoff', '{"to":"writer","message":"go"}'), 'researcher')).toEqual({
      kind: 'handoff',
      from: 'researcher',
      to: 'writer',
      message: 'go',
    });
  });
  it('returns null for other tools', () => {
    expect(extractHandoff(call('lookupOrder', '{}'), 'a')).toBeNull();
  });
  it('explains invalid JSON and missing fields', () => {
    expect(extractHandoff(call('handoff', '{nope'), 'a')).toMatch(/not valid JSON/);
    expect(extractHandoff(call('handoff', '{"to":"b"}'), 'a')).toMatch(/expected \{"to": string, "message": string\}/);
  });
});
