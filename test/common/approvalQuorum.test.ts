import { describe, expect, it } from 'vitest';
import { approvalPolicyCheck } from '../../src/common/approvalPolicy';
import { stagesFor } from '../../src/common/approvalQuorum';
import { approvedByQuorum, castVote, voteProblem } from '../../src/common/approvalVotes';
import type { ApprovalVote, HandoffDecision, PendingApproval } from '../../src/common/approvals';
import { verifyDelegation } from '../../src/common/signatures/delegation';
import { policyLoosening } from '../../src/common/authority/protective';
import { trustedKeys } from '../../src/common/signatures/keys';
import { signDelegation } from '../../src/client/signing/delegation';
import { decisionSigner, generateApproverKey } from '../../src/client/signing/signer';

const waitingOn = (stages: PendingApproval['stages'], votes: ApprovalVote[] = [], stage = 0): PendingApproval => ({
  handoffId: 'a1',
  from: 'triage',
  to: 'refunds',
  message: 'm',
  requestedAt: '2026-11-29T00:00:00.000Z',
  onTimeout: 'reject',
  stages,
  stage,
  votes,
  approvers: stages![stage]!.approvers,
});
const vote = (slot: string, decision: 'approve' | 'reject', stage = 0, approver = slot): ApprovalVote => ({
  stage,
  slot,
  approver,
  decision,
  at: '2026-11-29T00:01:00.000Z',
  via: 'update',
  ...(approver !== slot ? { onBehalfOf: slot } : {}),
});
const decision = (
  approver: string,
  d: 'approve' | 'reject' = 'approve',
  more: Partial<HandoffDecision> = {},
): HandoffDecision => ({ handoffId: 'a1', approver, decision: d, ...more });

describe('quorum and stages: checks', () => {
  it('accepts a quorum and stages with conditions', () => {
    expect(approvalPolicyCheck({ quorum: { of: ['alice', 'bob', 'carol'], needed: 2 } }, 'approval')).toEqual([]);
    expect(
      approvalPolicyCheck(
        {
          stages: [
            { approvers: ['security'], when: { arg: 'amount', op: '>', value: 1000 } },
            { approvers: ['f1', 'f2'], needed: 2 },
          ],
        },
        'approval',
      ),
    ).toEqual([]);
  });

  it.each([
    [{ quorum: { of: ['a', 'b'], needed: 3 } }, '"approval.quorum.needed" must be a whole number from 1 to 2'],
    [{ quorum: { of: [], needed: 1 } }, '"approval.quorum.of" is empty'],
    [{ quorum: { of: ['a', 'a'], needed: 1 } }, 'more than once'],
    [{ quorum: { of: ['a'], needed: 1, min: 2 } }, 'unknown field(s) "min" (valid: of, needed)'],
    [{ quorum: { of: ['a'], needed: 1 }, approvers: ['a'] }, 'has "approvers" beside "quorum"'],
    [{ quorum: { of: ['a'], needed: 1 }, stages: [{ approvers: ['a'] }] }, 'both "quorum" and "stages"'],
    [{ stages: [] }, '"approval.stages" must be a non-empty list'],
    [{ stages: [{ approvers: ['a'], when: { arg: 'x', op: 'exists' } }] }, 'leave "when" out of at least one stage'],
    [
      { stages: [{ approvers: ['a'], when: { arg: 'x', op: '>', value: 'big' } }, { approvers: ['b'] }] },
      '"approval.stages[0].when[0].value" must be a number',
    ],
    [{ stages: [{ approvers: ['a'], order: 1 }] }, 'unknown field(s) "order" (valid: approvers, needed, when)'],
    [
      { quorum: { of: ['a', 'b'], needed: 1 }, escalation: [{ after: '1 hour', reassign: ['c'] }] },
      'cannot: its slots are fixed',
    ],
  ])('refuses %j naming the field', (policy, problem) => {
    expect(approvalPolicyCheck(policy, 'approval').join('\n')).toContain(problem);
  });
});

describe('quorum and stages: authority', () => {
  it("refuses a run rule that would replace the team's quorum or stages, and keeps the same", () => {
    const team = { quorum: { of: ['alice', 'bob', 'carol'], needed: 2 } };
    expect(policyLoosening(team, { approvers: ['alice'] })).toContain('quorum as the team set them');
    expect(policyLoosening(team, { quorum: { of: ['alice', 'bob', 'carol'], needed: 1 } })).toContain('quorum');
    expect(policyLoosening(team, { quorum: { of: ['alice', 'bob', 'carol'], needed: 2 } })).toBeUndefined();
    expect(policyLoosening({ stages: [{ approvers: ['security'] }] }, { approvers: ['security'] })).toContain('stages');
  });
});

describe('quorum and stages: choosing stages by the arguments', () => {
  const policy = {
    stages: [
      { approvers: ['security'], when: { arg: 'amount', op: '>' as const, value: 1000 } },
      { approvers: ['finance'] },
    ],
  };
  it('takes a stage only when its conditions hold', () => {
    expect(stagesFor(policy, { amount: 5000 }).map((s) => s.approvers)).toEqual([['security'], ['finance']]);
    expect(stagesFor(policy, { amount: 10 }).map((s) => s.approvers)).toEqual([['finance']]);
  });
  it('takes every stage when the arguments cannot be read', () => {
    expect(stagesFor(policy, undefined)).toHaveLength(2);
  });
});

describe('quorum and stages: votes', () => {
  const two = [{ approvers: ['alice', 'bob', 'carol'], needed: 2 }];
  it('decides when N approve, not before', () => {
    const first = castVote(waitingOn(two), vote('alice', 'approve'));
    expect(first.outcome).toBeUndefined();
    expect(first.approvers).toEqual(['bob', 'carol']);
    const second = castVote(waitingOn(two, first.votes), vote('carol', 'approve'));
    expect(second.outcome).toBe('approved');
    expect(approvedByQuorum(two, second.votes)).toBe(true);
    expect(approvedByQuorum(two, first.votes)).toBe(false);
  });
  it('rejects as soon as the rejections leave too few slots to reach N', () => {
    const first = castVote(waitingOn(two), vote('alice', 'reject'));
    expect(first.outcome).toBeUndefined();
    expect(castVote(waitingOn(two, first.votes), vote('bob', 'reject')).outcome).toBe('rejected');
  });
  it('moves to the next stage when one is approved', () => {
    const staged = [
      { approvers: ['security'], needed: 1 },
      { approvers: ['finance'], needed: 1 },
    ];
    const t = castVote(waitingOn(staged), vote('security', 'approve'));
    expect(t).toMatchObject({ stage: 1, approvers: ['finance'], stageOutcome: 'approved' });
    expect(t.outcome).toBeUndefined();
  });
  it('refuses a second decision for a slot, by a person, and slots the stage lacks', () => {
    const w = waitingOn(two, [vote('alice', 'approve')]);
    expect(voteProblem(w, decision('alice'))).toContain('already decided');
    expect(voteProblem(w, decision('dave'))).toContain('dave may not decide stage 1 of 1');
    const delegated = waitingOn(two, [vote('bob', 'approve')]);
    expect(voteProblem(delegated, decision('bob', 'approve', { onBehalfOf: 'alice', delegation: 'x' }))).toContain(
      'bob already decided in stage 1',
    );
    expect(voteProblem(waitingOn(two), decision('bob', 'approve', { onBehalfOf: 'alice' }))).toContain('go together');
    expect(
      voteProblem(
        { ...waitingOn(two), stages: undefined },
        decision('bob', 'approve', { onBehalfOf: 'alice', delegation: 'x' }),
      ),
    ).toContain('not decided by slots');
  });
});

describe('delegation grants', () => {
  const alice = generateApproverKey({ approvers: ['alice'] });
  const ops = generateApproverKey({ approvers: ['ops'] });
  const mallory = generateApproverKey({ approvers: ['mallory'] });
  const keys = {
    approvers: trustedKeys({ approverKeys: [alice.approverKey, mallory.approverKey] }, undefined),
    operators: [ops.approverKey],
  };
  const now = Date.parse('2026-11-29T10:00:00Z');
  const until = now + 3 * 86400_000;
  const claim = (grant: string, more: Partial<Parameters<typeof verifyDelegation>[0]> = {}) => ({
    grant,
    slot: 'alice',
    delegate: 'bob',
    workflowId: 'wf',
    arrivedAt: now + 1000,
    ...more,
  });

  it("accepts the slot owner's grant and an operator's, until they expire", async () => {
    const own = await signDelegation(decisionSigner(alice.privateJwk), { slot: 'alice', delegate: 'bob', until, now });
    expect(verifyDelegation(claim(own), keys)).toMatchObject({
      ok: true,
      grant: { by: 'alice', authority: 'approver', kid: alice.approverKey.kid },
    });
    const op = await signDelegation(decisionSigner(ops.privateJwk), {
      slot: 'alice',
      delegate: 'bob',
      until,
      now,
      operator: 'ops',
    });
    expect(verifyDelegation(claim(op), keys)).toMatchObject({ ok: true, grant: { by: 'ops', authority: 'operator' } });
    expect(verifyDelegation(claim(own, { arrivedAt: until + 1000 }), keys)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('expired'),
    });
  });

  it("refuses forged grants: another approver giving alice's slot, another delegate, another chain, a changed grant", async () => {
    const forged = await signDelegation(decisionSigner(mallory.privateJwk), {
      slot: 'alice',
      delegate: 'bob',
      until,
      now,
      operator: 'mallory',
    });
    expect(verifyDelegation(claim(forged), keys)).toMatchObject({
      ok: false,
      reason: expect.stringContaining("not a key of the team's operatorKeys"),
    });
    const own = await signDelegation(decisionSigner(mallory.privateJwk), {
      slot: 'mallory',
      delegate: 'bob',
      until,
      now,
    });
    expect(verifyDelegation(claim(own), keys)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('gives the slot of "mallory"'),
    });
    const good = await signDelegation(decisionSigner(alice.privateJwk), {
      slot: 'alice',
      delegate: 'bob',
      until,
      now,
      workflowId: 'wf',
    });
    expect(verifyDelegation(claim(good, { delegate: 'eve' }), keys)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('not "eve"'),
    });
    expect(verifyDelegation(claim(good, { workflowId: 'other' }), keys)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('for chain "wf"'),
    });
    const [h, , s] = good.split('.');
    const body = Buffer.from(
      JSON.stringify({
        v: 'baton.delegation/1',
        slot: 'alice',
        delegate: 'eve',
        authority: 'approver',
        by: 'alice',
        iat: now / 1000,
        exp: until / 1000,
      }),
    ).toString('base64url');
    expect(verifyDelegation(claim(`${h}.${body}.${s}`, { delegate: 'eve' }), keys)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('does not verify'),
    });
  });
});
