import { describe, expect, it } from 'vitest';
import { approvalPolicyCheck } from '../../src/common/approvalPolicy';
import { approvalTimingCheck, effectiveTiming } from '../../src/common/approvalTiming';
import { policyLoosening } from '../../src/common/authority/protective';

describe('approval policy timing', () => {
  it('accepts a full policy', () => {
    expect(
      approvalPolicyCheck(
        {
          approvers: ['alice'],
          dueIn: '4 hours',
          remindEvery: '1 hour',
          escalation: [
            { after: '2 hours', reassign: ['leads'] },
            { after: '3 hours', notify: ['cto'] },
            { after: '8 hours', decide: 'reject' },
          ],
        },
        'approval',
      ),
    ).toEqual([]);
  });

  it('names the field and what is valid for each bad value', () => {
    const problems = (v: unknown) => approvalPolicyCheck(v, 'approval');
    expect(problems({ dueIn: 'soon' })).toEqual([expect.stringContaining('"approval.dueIn" must be a duration')]);
    expect(problems({ remindEvery: '10 seconds' })).toEqual([
      expect.stringContaining('"approval.remindEvery" must be a duration from 1 minute'),
    ]);
    expect(problems({ escalation: [{ after: '1 hour' }] })).toEqual([
      expect.stringContaining('"approval.escalation[0]" must have exactly one of reassign, notify, decide, got none'),
    ]);
    expect(problems({ escalation: [{ after: '1 hour', reassign: ['a'], notify: ['b'] }] })).toEqual([
      expect.stringContaining('got reassign and notify'),
    ]);
    expect(problems({ escalation: [{ after: '1 hour', decide: 'maybe' }] })).toEqual([
      expect.stringContaining('"approval.escalation[0].decide" must be one of approve, reject, fail'),
    ]);
    expect(
      problems({
        escalation: [
          { after: '2 hours', notify: ['a'] },
          { after: '1 hour', notify: ['b'] },
        ],
      }),
    ).toEqual([expect.stringContaining('"approval.escalation[1].after" ("1 hour") must come later')]);
    expect(
      problems({
        escalation: [
          { after: '1 hour', decide: 'reject' },
          { after: '2 hours', notify: ['b'] },
        ],
      }),
    ).toEqual([expect.stringContaining('decides, so it must be the last step')]);
    expect(problems({ timeout: '1 hour', escalation: [{ after: '2 hours', notify: ['b'] }] })).toEqual([
      expect.stringContaining('is not before the "timeout"'),
    ]);
    expect(problems({ timeout: '3 hours', escalation: [{ after: '2 hours', decide: 'approve' }] })).toEqual([
      expect.stringContaining('both "timeout" and an escalation step that decides'),
    ]);
    expect(problems({ escalation: [{ after: '1 hour', reassign: [] }] })).toEqual([
      expect.stringContaining('"approval.escalation[0].reassign" is empty'),
    ]);
    expect(approvalTimingCheck({ dueIn: '1 hour', approvers: ['x'] }, 'approvalPolicy')).toEqual([
      expect.stringContaining('unknown field(s) "approvers" (valid: dueIn, remindEvery, escalation)'),
    ]);
  });

  it('takes each field from the most specific level: the policy, then the run, then the team', () => {
    expect(
      effectiveTiming(
        { dueIn: '1 hour' },
        { dueIn: '2 hours', remindEvery: '10 minutes' },
        { remindEvery: '1 hour', escalation: [{ after: '3 hours', decide: 'reject' }] },
      ),
    ).toEqual({
      dueIn: '1 hour',
      remindEvery: '10 minutes',
      escalation: [{ after: '3 hours', decide: 'reject' }],
    });
    expect(effectiveTiming({}, undefined, undefined)).toBeUndefined();
  });

  it('counts an earlier auto-approval or a reassignment to new people as loosening', () => {
    expect(
      policyLoosening(
        { approvers: ['alice'] },
        { approvers: ['alice'], escalation: [{ after: '1 hour', decide: 'approve' }] },
      ),
    ).toMatch(/approved sooner/);
    expect(
      policyLoosening(
        { approvers: ['alice'] },
        { approvers: ['alice'], escalation: [{ after: '1 hour', reassign: ['mallory'] }] },
      ),
    ).toMatch(/reassigned .* to mallory/);
    expect(
      policyLoosening(
        { approvers: ['alice'] },
        { approvers: ['alice'], escalation: [{ after: '1 hour', decide: 'reject' }] },
      ),
    ).toBeUndefined();
  });
});
