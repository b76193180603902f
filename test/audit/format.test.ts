import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../src/audit/chain';
import { formatTimeline, toMermaid } from '../../src/audit/format';
import { clip } from '../../src/audit/timelineText';
import { at, chainOf } from './auditChains';

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
