/** How the CLI writes approvals and decisions, and reads edited tool-call arguments. */
import { describe, expect, it } from 'vitest';
import { argumentsOption } from '../../src/cli/approvals';
import { UsageError } from '../../src/cli/args';
import {
  approvalSubject,
  compactArguments,
  decideHint,
  formatDecision,
  formatPending,
  formatWaiting,
} from '../../src/cli/print';
import type { PendingHandoff } from '../../src/client/baton';
import { toWaitingApproval } from '../../src/client/pending';

const at = '2026-01-01T00:00:00.000Z';
const handoff: PendingHandoff = {
  approvalId: 'h1',
  handoffId: 'h1',
  from: 'triage',
  to: 'refunds',
  message: 'Refund order 42',
  requestedAt: at,
  onTimeout: 'reject',
  workflowId: 'wf-1',
  runId: 'r',
  ageMs: 4_200,
  approvers: ['alice'],
};
const toolCall: PendingHandoff = {
  ...handoff,
  approvalId: 't1',
  handoffId: 't1',
  from: 'refunds',
  to: 'tool:issueRefund',
  message: 'issueRefund({ "orderId": "A1", "amount": 250 })',
  tool: {
    name: 'issueRefund',
    arguments: { orderId: 'A1', amount: 250 },
    argumentsText: '{ "orderId": "A1", "amount": 250 }',
    toolCallId: 'call-1',
    callHash: 'abc',
  },
};

describe('approvals in the CLI', () => {
  it('names a handoff by its edge, and a tool call by its agent, tool and arguments', () => {
    expect(approvalSubject(handoff)).toBe('triage → refunds');
    expect(approvalSubject(toolCall)).toBe('refunds → tool issueRefund {"orderId":"A1","amount":250}');
  });

  it('lists them for baton pending', () => {
    expect(formatPending(handoff)).toBe(
      'wf-1  h1  triage → refunds  waiting 4s  approvers: alice\n    "Refund order 42"',
    );
    expect(formatPending(toolCall)).toBe(
      'wf-1  t1  refunds → tool issueRefund {"orderId":"A1","amount":250}  waiting 4s  approvers: alice',
    );
  });

  it('shows a waiting tool call as a run follows it, and how to decide it with edited arguments', () => {
    expect(formatWaiting(toWaitingApproval(handoff))).toBe(
      '  ⏸ triage → refunds waits for approval (handoff h1, approvers: alice)',
    );
    expect(formatWaiting(toWaitingApproval(toolCall))).toBe(
      '  ⏸ refunds → tool issueRefund {"orderId":"A1","amount":250} waits for approval (tool call t1, approvers: alice)',
    );
    expect(decideHint('wf-1', 'h1')).toBe('decide with: npx baton approve wf-1 --id h1 --as <you>   (or reject)');
    expect(decideHint('wf-1', 't1', true)).toBe(
      `decide with: npx baton approve wf-1 --id t1 --as <you> [--args '<json object of fields to change>']   (or reject)`,
    );
  });

  it('keeps arguments that are not JSON as the model wrote them, on one line, and clips long ones', () => {
    expect(compactArguments('{"a":\n 1,')).toBe('{"a": 1,');
    const long = compactArguments(JSON.stringify({ note: 'x'.repeat(500) }));
    expect(long).toHaveLength(200);
    expect(long.endsWith('…')).toBe(true);
  });

  it('prints a decision, with the arguments an approver edited', () => {
    const base = { requestedAt: at, decidedAt: at, via: 'update' as const };
    expect(formatDecision({ ...base, handoffId: 'h1', outcome: 'approved', approver: 'alice' })).toBe(
      'handoff h1 approved by alice',
    );
    expect(
      formatDecision({
        ...base,
        handoffId: 't1',
        outcome: 'approved',
        approver: 'alice',
        tool: 'issueRefund',
        editedArguments: '{"orderId":"A1","amount":200}',
      }),
    ).toBe('tool call t1 (issueRefund) approved by alice with edited arguments {"orderId":"A1","amount":200}');
    expect(
      formatDecision({ ...base, handoffId: 't1', outcome: 'timed_out', via: 'timeout', tool: 'issueRefund' }),
    ).toBe('tool call t1 (issueRefund) timed out');
  });

  it('reads --args as a JSON object, and refuses anything else naming the flag', () => {
    expect(argumentsOption('--args', '{"orderId":"A1","amount":200}')).toEqual({ orderId: 'A1', amount: 200 });
    expect(() => argumentsOption('--args', '{orderId: A1}')).toThrow(UsageError);
    expect(() => argumentsOption('--args', '{orderId: A1}')).toThrow(
      /^--args must be a JSON object of the tool's arguments, e\.g\. \{"orderId":"A1"\}; got text that is not JSON/,
    );
    expect(() => argumentsOption('--args', '[1, 2]')).toThrow(/^--args must be a JSON object .*; got a list$/);
    expect(() => argumentsOption('--args', '250')).toThrow(/; got a number$/);
    expect(() => argumentsOption('--args', 'null')).toThrow(/; got null$/);
  });
});
