import { describe, expect, it } from 'vitest';
import { planTurn } from '../../../workflows/chain/turn';

const call = (id: string, name: string) => ({ id, name, arguments: '{}' });

describe('planTurn (one handoff per turn)', () => {
  it('runs regular tools and takes the single handoff', () => {
    const plan = planTurn([call('1', 'lookup'), call('2', 'handoff'), call('3', 'search')]);
    expect(plan.tools.map((c) => c.id)).toEqual(['1', '3']);
    expect(plan.handoff?.id).toBe('2');
    expect(plan.ignoredHandoffs).toEqual([]);
  });

  it('lets the first of several handoffs win and ignores the rest', () => {
    const plan = planTurn([call('1', 'handoff'), call('2', 'handoff'), call('3', 'handoff')]);
    expect(plan.handoff?.id).toBe('1');
    expect(plan.ignoredHandoffs.map((c) => c.id)).toEqual(['2', '3']);
  });

  it('has no handoff when none was asked for', () => {
    expect(planTurn([call('1', 'lookup')]).handoff).toBeUndefined();
  });
});
