import { describe, expect, it } from 'vitest';
import { buildConversationAudit } from '../../src/audit/conversation';
import { formatConversation } from '../../src/audit/conversationFormat';
import { TURN_MEMO } from '../../src/common/messages';
import type { HandoffRecord } from '../../src/common/run';
import { HistoryBuilder } from './synthetic';

const at = '2026-01-01T00:00:00.000Z';
const handoff: HandoffRecord = {
  from: 'triage',
  to: 'refunds',
  message: 'refund order 42',
  timestamp: at,
  turn: 1,
  approval: { handoffId: 'h2', outcome: 'approved', approver: 'alice', requestedAt: at, decidedAt: at, via: 'update' },
};

describe('the conversation timeline', () => {
  it('tells what each control and approval did, in the order it happened, before the handoff they gated', () => {
    const history = new HistoryBuilder()
      .started({ agent: 'triage' })
      .memo(TURN_MEMO, { phase: 'started', turn: 1, idempotencyKey: 'k1', agent: 'triage', at })
      .approvalEvent({
        type: 'control',
        control: 'loop_detected',
        at,
        from: 'triage',
        to: 'refunds',
        cycle: ['triage', 'refunds', 'triage', 'refunds'],
        pattern: 'repeat',
        refused: true,
      })
      .approvalEvent({
        type: 'approval_requested',
        handoffId: 'h2',
        from: 'triage',
        to: 'refunds',
        message: 'refund order 42',
        requestedAt: at,
        onTimeout: 'reject',
      })
      .approvalEvent({
        type: 'decision_refused',
        handoffId: 'h2',
        approver: 'mallory',
        decision: 'approve',
        reason: 'mallory may not decide this handoff (approvers: alice)',
        via: 'signal',
        at,
      })
      .approvalEvent({ type: 'approval_decided', ...handoff.approval })
      .handoff({ index: 1, handoff, toolResults: [] })
      .memo(TURN_MEMO, {
        phase: 'answered',
        turn: 1,
        reply: { turn: 1, output: 'Refunded.', agent: 'refunds', handoffs: [handoff] },
        at,
      });
    const audit = buildConversationAudit('c', [{ runId: 'r', events: history.events() }]);
    expect(audit.turns[0]!.steps.map((s) => s.kind)).toEqual([
      'control',
      'approval_requested',
      'decision_refused',
      'approval_decided',
      'handoff',
    ]);
    expect(audit.turns[0]!.approvals.map((a) => a.kind)).toEqual([
      'approval_requested',
      'decision_refused',
      'approval_decided',
    ]);
    expect(formatConversation(audit).split('\n').slice(2, 8)).toEqual([
      '      loop       triage → refunds refused as a loop, the model is told (triage → refunds → triage → refunds)',
      '      approval   asked for triage → refunds (h2)',
      '      approval   refused approve from "mallory" (claimed) (signal): mallory may not decide this handoff (approvers: alice)',
      '      approval   approved by "alice" (claimed) via update',
      '      handoff    #1 triage → refunds (approved by "alice" (claimed)): refund order 42',
      '      refunds: Refunded.',
    ]);
  });
});
