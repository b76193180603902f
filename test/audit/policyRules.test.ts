/**
 * The rules `baton audit --verify` holds a chain's events to after a `policy_updated` record: a
 * record that loosens what the chain ran under is refused, whichever agents its rules name, with
 * or without approvals of their own.
 */
import { describe, expect, it } from 'vitest';
import { handoffPolicy, rulesAfterUpdate, type RulesInForce } from '../../src/audit/exportPolicy';

/** A chain whose team gates every handoff into billing (alice approves), billing having no approval of its own. */
const gated: RulesInForce = {
  toolApprovals: {},
  handoffApprovals: [[], [{ to: 'billing', approvers: ['alice'] }], []],
};
const update = (policy: unknown) => ({ from: 'support@v1', to: 'support@v2', appliedBy: 'ops:dave', policy });

describe('the rules after a policy update', () => {
  it('refuse a record that drops a team rule into an agent with no approval of its own', () => {
    expect(handoffPolicy(gated, 'triage', 'billing')).toMatchObject({ approvers: ['alice'] });
    const dropped = rulesAfterUpdate(gated, 6, update({ version: 'support@v2', approvals: [], agents: {} }));
    expect(dropped).toEqual(expect.stringContaining('loosens what the chain ran under'));
    expect(dropped).toEqual(expect.stringContaining('billing'));
  });

  it('refuse a record that drops an edge rule from such an agent, and take one that keeps or adds to the rules', () => {
    const edge: RulesInForce = {
      toolApprovals: {},
      handoffApprovals: [[], [{ from: 'billing', to: 'refunds', approvers: ['bob'] }], []],
    };
    expect(rulesAfterUpdate(edge, 3, update({ version: 'support@v2', approvals: [], agents: {} }))).toEqual(
      expect.stringContaining('billing → refunds'),
    );
    const kept = rulesAfterUpdate(
      gated,
      6,
      update({
        version: 'support@v2',
        approvals: [{ to: 'billing', approvers: ['alice'], requireSignature: true }],
        agents: { refunds: { approval: { approvers: ['carol'] } } },
      }),
    );
    expect(typeof kept).toBe('object');
    const after = kept as RulesInForce;
    expect(handoffPolicy(after, 'triage', 'billing')).toMatchObject({ approvers: ['alice'], requireSignature: true });
    expect(handoffPolicy(after, 'billing', 'refunds')).toMatchObject({ approvers: ['carol'] });
    expect(after.update).toEqual({ seq: 6, from: 'support@v1', to: 'support@v2', appliedBy: 'ops:dave' });
  });
});
