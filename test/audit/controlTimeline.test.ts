/** The timeline of tool approvals and control events: a line for each, read from the memo the workflow records. */
import { describe, expect, it } from 'vitest';
import { buildAudit } from '../../src/audit/chain';
import { controlLine, formatTimeline } from '../../src/audit/format';
import { at, chainOf } from './auditChains';
import { HistoryBuilder } from './synthetic';

describe('controls on the timeline', () => {
  it('shows a tool call put to approval with its arguments, and an approval with edited arguments', () => {
    const tool = {
      name: 'issueRefund',
      arguments: '{"orderId":"A1","amount":250}',
      toolCallId: 'call-1',
      callHash: 'h1',
    };
    const chain = chainOf({
      status: 'running',
      events: [
        {
          at,
          runId: 'r',
          eventId: 1,
          kind: 'approval_requested',
          handoffId: 'ap1',
          from: 'refunds',
          to: 'tool:issueRefund',
          message: 'issueRefund({"orderId":"A1","amount":250})',
          approvers: ['alice'],
          tool,
        },
        {
          at,
          runId: 'r',
          eventId: 1,
          kind: 'approval_decided',
          handoffId: 'ap1',
          outcome: 'approved',
          approver: 'alice',
          requestedAt: at,
          decidedAt: at,
          via: 'update',
          tool: 'issueRefund',
          editedArguments: '{"orderId":"A1","amount":200}',
          comment: 'capped',
        },
        {
          at,
          runId: 'r',
          eventId: 1,
          kind: 'approval_decided',
          handoffId: 'ap2',
          outcome: 'rejected',
          approver: 'bob',
          requestedAt: at,
          decidedAt: at,
          via: 'signal',
          tool: 'issueRefund',
          reason: 'no',
        },
      ],
    });
    chain.events.push({
      at,
      runId: 'r',
      eventId: 2,
      kind: 'tool_call',
      agent: 'refunds',
      tool: 'issueRefund',
      arguments: '{"orderId":"A1","amount":200}',
      requestedArguments: '{"orderId":"A1","amount":250}',
      answeredBy: 'tool',
      ok: true,
      result: '{"refunded":200}',
      execution: { status: 'completed', attempts: 1, latencyMs: 4 },
    });
    const lines = formatTimeline(chain).split('\n').slice(2);
    expect(lines).toEqual([
      '00:00:00.000  approval   asked for refunds to call issueRefund({"orderId":"A1","amount":250}) (ap1), approvers alice',
      '00:00:00.000  approval   approved by "alice" (claimed) with edited arguments {"orderId":"A1","amount":200} via update: "capped"',
      '00:00:00.000  approval   rejected by "bob" (claimed) via signal: "no"',
      '00:00:00.000  refunds    tool issueRefund({"orderId":"A1","amount":200}) → {"refunded":200} (4 ms) [edited at approval from {"orderId":"A1","amount":250}]',
    ]);
  });

  it('gives each control event a line of its own', () => {
    const until = '2026-01-01T12:01:00.000Z';
    expect(
      controlLine({
        kind: 'loop_detected',
        from: 'triage',
        to: 'billing',
        cycle: ['triage', 'billing', 'triage', 'billing'],
        pattern: 'repeat',
        refused: true,
      }),
    ).toEqual(['loop', 'triage → billing refused as a loop, the model is told (triage → billing → triage → billing)']);
    // A loop not refused failed the run (`onLoop: 'fail'`, or no refusals left): the line says so.
    expect(
      controlLine({
        kind: 'loop_detected',
        from: 'a',
        to: 'b',
        cycle: ['a', 'b', 'a'],
        pattern: 'oscillation',
        refused: false,
      }),
    ).toEqual(['loop', 'a → b is a loop → the run fails (a → b → a), bouncing with no progress']);
    expect(controlLine({ kind: 'target_failed', agent: 'billing', reason: 'model call failed: 503' })).toEqual([
      'breaker',
      'billing failed: model call failed: 503',
    ]);
    expect(controlLine({ kind: 'breaker_opened', agent: 'billing', failures: 3, until })).toEqual([
      'breaker',
      'billing opened after 3 failures until 12:01:00',
    ]);
    expect(controlLine({ kind: 'breaker_half_open', agent: 'billing' })).toEqual([
      'breaker',
      'billing half-open: the next handoff to it is a trial',
    ]);
    expect(controlLine({ kind: 'breaker_closed', agent: 'billing' })).toEqual([
      'breaker',
      'billing closed: it works again',
    ]);
    expect(controlLine({ kind: 'breaker_refused', agent: 'billing', from: 'triage', until })).toEqual([
      'breaker',
      'triage → billing refused: its breaker is open until 12:01:00; triage is told',
    ]);
    expect(
      controlLine({
        kind: 'guardrail_tripped',
        agent: 'refunds',
        guardrail: 'pii',
        stage: 'output',
        reason: 'it contains personal data (email)',
        onTrip: 'feedback',
      }),
    ).toEqual([
      'guardrail',
      'refunds output "pii" tripped: it contains personal data (email) → the agent is told and tries again',
    ]);
    expect(
      controlLine({
        kind: 'guardrail_tripped',
        agent: 'refunds',
        guardrail: 'short',
        stage: 'input',
        reason: 'too long',
        onTrip: 'fail',
      })[1],
    ).toBe('refunds input "short" tripped: too long → the run fails');
    expect(
      controlLine({
        kind: 'budget_exceeded',
        budget: 'tokens',
        limit: 10_000,
        used: 10_412,
        agent: 'refunds',
        onBudgetExceeded: 'fail',
      }),
    ).toEqual(['budget', 'tokens 10412 of 10000 used (refunds) → the run fails']);
    expect(
      controlLine({
        kind: 'budget_exceeded',
        budget: 'deadline',
        limit: 60_000,
        used: 61_200,
        agent: 'writer',
        onBudgetExceeded: 'final_answer',
      })[1],
    ).toBe('deadline 61 s of 60 s used (writer) → writer answers now, without tools');
  });

  it('reads control events from the memo the workflow records, and puts them on the timeline', () => {
    const run = new HistoryBuilder()
      .started({ agent: 'triage', input: 'go' })
      .approvalEvent({
        type: 'control',
        control: 'loop_detected',
        at: '2026-01-01T00:00:05.000Z',
        from: 'triage',
        to: 'billing',
        cycle: ['triage', 'billing', 'triage', 'billing'],
        pattern: 'repeat',
        refused: true,
      })
      .approvalEvent({
        type: 'control',
        control: 'breaker_opened',
        at: '2026-01-01T00:00:06.000Z',
        agent: 'billing',
        failures: 3,
        until: '2026-01-01T12:01:00.000Z',
      })
      .approvalEvent({
        type: 'control',
        control: 'budget_exceeded',
        at: '2026-01-01T00:00:07.000Z',
        budget: 'tokens',
        limit: 10000,
        used: 10412,
        agent: 'refunds',
        onBudgetExceeded: 'fail',
      });
    const chain = buildAudit('wf', [{ runId: 'r', events: run.events() }]);
    const controls = chain.events.filter((e) => e.kind === 'control');
    // Each at its history event's time (the memo's own `at` is workflow time, read before the event was written).
    expect(controls.map((c) => c.at)).toEqual([
      '2026-01-01T00:00:00.020Z',
      '2026-01-01T00:00:00.030Z',
      '2026-01-01T00:00:00.040Z',
    ]);
    expect(controls[0]).toEqual({
      at: '2026-01-01T00:00:00.020Z',
      runId: 'r',
      eventId: 2,
      kind: 'control',
      control: 'loop_detected',
      from: 'triage',
      to: 'billing',
      cycle: ['triage', 'billing', 'triage', 'billing'],
      pattern: 'repeat',
      refused: true,
    });
    expect(formatTimeline(chain).split('\n').slice(-3)).toEqual([
      '00:00:00.020  loop       triage → billing refused as a loop, the model is told (triage → billing → triage → billing)',
      '00:00:00.030  breaker    billing opened after 3 failures until 12:01:00',
      '00:00:00.040  budget     tokens 10412 of 10000 used (refunds) → the run fails',
    ]);
  });
});
