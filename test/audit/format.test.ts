import { describe, expect, it } from 'vitest';
import { AUDIT_SCHEMA, buildAudit, type AuditChain, type AuditEvent } from '../../src/audit/chain';
import { controlLine, formatTimeline, toMermaid } from '../../src/audit/format';
import { clip } from '../../src/audit/timelineText';
import { HistoryBuilder } from './synthetic';

const at = '2026-01-01T00:00:00.000Z';
const chainOf = (events: Partial<AuditChain> & { events: AuditEvent[] }): AuditChain => ({
  schema: AUDIT_SCHEMA,
  workflowId: 'wf',
  runIds: ['r'],
  status: 'failed',
  handoffs: [],
  lineage: [],
  input: { agent: 'a', input: 'go' },
  ...events,
});
const longError = `Tool "ship" of agent "a" failed: ${'stack frame\n    at somewhere '.repeat(200)}`;

describe('the timeline', () => {
  it('clips long errors and texts to one line; the JSON keeps them whole', () => {
    const chain = chainOf({
      failure: { type: 'ToolExecutionError', message: longError },
      events: [
        {
          at,
          runId: 'r',
          eventId: 1,
          kind: 'tool_call',
          agent: 'a',
          tool: 'ship',
          arguments: JSON.stringify({ note: 'x'.repeat(500) }),
          answeredBy: 'tool',
          execution: { status: 'failed', attempts: 3, latencyMs: 5, error: longError },
        },
        {
          at,
          runId: 'r',
          eventId: 1,
          kind: 'tool_call',
          agent: 'a',
          tool: 'nosuch',
          arguments: '{}',
          answeredBy: 'workflow',
          result: `Error: unknown tool "nosuch". Available tools: ${'t, '.repeat(300)}`,
        },
        {
          at,
          runId: 'r',
          eventId: 1,
          kind: 'workflow_task_failed',
          cause: 'WORKFLOW_TASK_FAILED_CAUSE_WORKFLOW_WORKER_UNHANDLED_FAILURE',
          message: longError,
        },
        { at, runId: 'r', eventId: 1, kind: 'failed', type: 'ToolExecutionError', message: longError },
      ],
    });
    const lines = formatTimeline(chain).split('\n');
    expect(lines).toHaveLength(2 + 4);
    for (const line of lines) expect(line.length).toBeLessThan(300);
    expect(lines[2]).toMatch(
      /a +tool ship\(.*…\) \(5 ms, 3 attempts\) \[failed: Tool "ship" of agent "a" failed: stack frame at somewhere .*…\]$/,
    );
    expect(lines[3]).toMatch(
      /a +tool nosuch\(\{\}\) → answered by baton: Error: unknown tool "nosuch"\. Available tools: t, t, .*…$/,
    );
    expect(lines[4]).toMatch(/task +workflow task failed \(workflow_worker_unhandled_failure\): Tool "ship"/);
    expect(lines[5]).toMatch(/failed +ToolExecutionError: Tool "ship" .*…$/);
    expect(JSON.parse(JSON.stringify(chain)).failure.message).toBe(longError);
  });

  it('says how each handoff request ended', () => {
    const ask = (outcome: string, extra: Record<string, unknown> = {}): AuditEvent =>
      ({
        at,
        runId: 'r',
        eventId: 1,
        kind: 'handoff_requested',
        from: 'a',
        to: 'b',
        message: 'over',
        outcome,
        ...extra,
      }) as AuditEvent;
    const chain = chainOf({
      status: 'running',
      stuck: { since: at, error: 'Unexpected notifyHasPatch job on non-replay activation' },
      events: [
        ask('executed', { index: 2 }),
        ask('awaiting_approval', { handoffId: 'h1' }),
        ask('rejected', { answer: 'The handoff to b was rejected by bob.' }),
        ask('refused', { reason: 'Max handoffs (2) exceeded.' }),
        ask('pending'),
      ],
    });
    const text = formatTimeline(chain);
    expect(text).toContain(
      'chain wf: running\nstuck since 00:00:00.000: its workflow task keeps failing: Unexpected notifyHasPatch job',
    );
    expect(text).toContain('asks to hand off to b: "over" → executed (#2)');
    expect(text).toContain('asks to hand off to b: "over" → waits for approval (h1)');
    expect(text).toContain('→ rejected: The handoff to b was rejected by bob.');
    expect(text).toContain('→ refused: Max handoffs (2) exceeded.');
    expect(text).toContain('→ not acted on yet');
  });

  it('shows a structured answer as JSON', () => {
    const chain = chainOf({
      status: 'completed',
      events: [{ at, runId: 'r', eventId: 1, kind: 'final_answer', agent: 'a', output: { refund: 42, ok: true } }],
    });
    expect(formatTimeline(chain)).toContain('answer     a: {"refund":42,"ok":true}');
  });

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

  it('clip flattens whitespace and ends a cut text with an ellipsis', () => {
    expect(clip('a\n  b', 10)).toBe('a b');
    expect(clip('abcdefghij', 5)).toBe('abcd…');
  });
});

describe('the timeline of a delegation', () => {
  it('shows the specialist starting, its chain, its answer when it came back, and a delegate call whose answer never reached the model', () => {
    const child = chainOf({
      workflowId: 'wf/orders-1.1',
      status: 'completed',
      input: { agent: 'orders', input: 'Task from triage: look up order 42' },
      events: [{ at, runId: 'c', eventId: 9, kind: 'final_answer', agent: 'orders', output: 'order 42: delivered' }],
    });
    const chain = chainOf({
      status: 'failed',
      children: [child],
      events: [
        {
          at,
          runId: 'r',
          eventId: 5,
          kind: 'tool_call',
          agent: 'triage',
          tool: 'delegate',
          arguments: '{"to":"orders","task":"look up order 42"}',
          answeredBy: 'workflow',
        },
        {
          at,
          runId: 'r',
          eventId: 8,
          kind: 'delegation',
          from: 'triage',
          to: 'orders',
          childWorkflowId: 'wf/orders-1.1',
          task: 'Task from triage: look up order 42\nWhy you: …',
          outcome: 'completed',
          output: 'order 42: delivered',
        },
        {
          at,
          runId: 'r',
          eventId: 12,
          kind: 'delegation_ended',
          from: 'triage',
          to: 'orders',
          childWorkflowId: 'wf/orders-1.1',
          outcome: 'completed',
          output: 'order 42: delivered',
        },
        {
          at,
          runId: 'r',
          eventId: 16,
          kind: 'failed',
          type: 'MaxTurnsExceededError',
          message: 'Agent "triage" exceeded 1 turns',
        },
      ],
    });
    expect(formatTimeline(chain).split('\n').slice(2)).toEqual([
      '00:00:00.000  triage     tool delegate({"to":"orders","task":"look up order 42"}) → its answer never reached the model: the run ended first',
      '00:00:00.000  delegate   triage starts orders (chain wf/orders-1.1): "Task from triage: look up order 42"',
      '    │ chain wf/orders-1.1: completed',
      '    │ input: orders ← "Task from triage: look up order 42"',
      '    │ 00:00:00.000  answer     orders: "order 42: delivered"',
      '00:00:00.000  delegate   orders answered triage: "order 42: delivered"',
      '00:00:00.000  failed     MaxTurnsExceededError: Agent "triage" exceeded 1 turns',
    ]);
  });
});

describe('the Mermaid diagram', () => {
  it('gives agent ids Mermaid cannot take as node ids a node of their own', () => {
    const chain = chainOf({
      status: 'completed',
      input: { agent: 'end', input: 'go' },
      result: {
        output: 'x',
        finalAgent: 'end',
        handoffChain: [],
        usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0, modelCalls: 0, toolCalls: 0 },
      },
      events: [
        {
          at,
          runId: 'r',
          eventId: 1,
          kind: 'handoff_requested',
          from: 'end',
          to: 'billing dept',
          message: 'm',
          outcome: 'invalid_target',
        },
      ],
    });
    expect(toMermaid(chain)).toBe(
      [
        'flowchart LR',
        '  input([input]) --> agent_end["end"]',
        '  agent_end["end"] -.->|"invalid target"| agent_billing_20_dept["billing dept"]',
        '  agent_end["end"] --> answer([answer])',
      ].join('\n'),
    );
  });
});
