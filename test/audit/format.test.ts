import { describe, expect, it } from 'vitest';
import { AUDIT_SCHEMA, type AuditChain, type AuditEvent } from '../../src/audit/chain';
import { clip, formatTimeline, toMermaid } from '../../src/audit/format';

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
        { at, runId: 'r', kind: 'tool_call', agent: 'a', tool: 'ship', arguments: JSON.stringify({ note: 'x'.repeat(500) }), answeredBy: 'tool', execution: { status: 'failed', attempts: 3, latencyMs: 5, error: longError } },
        { at, runId: 'r', kind: 'tool_call', agent: 'a', tool: 'nosuch', arguments: '{}', answeredBy: 'workflow', result: `Error: unknown tool "nosuch". Available tools: ${'t, '.repeat(300)}` },
        { at, runId: 'r', kind: 'workflow_task_failed', cause: 'WORKFLOW_TASK_FAILED_CAUSE_WORKFLOW_WORKER_UNHANDLED_FAILURE', message: longError },
        { at, runId: 'r', kind: 'failed', type: 'ToolExecutionError', message: longError },
      ],
    });
    const lines = formatTimeline(chain).split('\n');
    expect(lines).toHaveLength(2 + 4);
    for (const line of lines) expect(line.length).toBeLessThan(300);
    expect(lines[2]).toMatch(/a +tool ship\(.*…\) \(5 ms, 3 attempts\) \[failed: Tool "ship" of agent "a" failed: stack frame at somewhere .*…\]$/);
    expect(lines[3]).toMatch(/a +tool nosuch\(\{\}\) → answered by baton: Error: unknown tool "nosuch"\. Available tools: t, t, .*…$/);
    expect(lines[4]).toMatch(/task +workflow task failed \(workflow_worker_unhandled_failure\): Tool "ship"/);
    expect(lines[5]).toMatch(/failed +ToolExecutionError: Tool "ship" .*…$/);
    expect(JSON.parse(JSON.stringify(chain)).failure.message).toBe(longError);
  });

  it('says how each handoff request ended', () => {
    const ask = (outcome: string, extra: Record<string, unknown> = {}): AuditEvent =>
      ({ at, runId: 'r', kind: 'handoff_requested', from: 'a', to: 'b', message: 'over', outcome, ...extra }) as AuditEvent;
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
    expect(text).toContain('chain wf: running\nstuck since 00:00:00.000: its workflow task keeps failing: Unexpected notifyHasPatch job');
    expect(text).toContain('asks to hand off to b: "over" → executed (#2)');
    expect(text).toContain('→ awaiting approval (h1)');
    expect(text).toContain('→ rejected: The handoff to b was rejected by bob.');
    expect(text).toContain('→ refused: Max handoffs (2) exceeded.');
    expect(text).toContain('→ not acted on yet');
  });

  it('shows a structured answer as JSON', () => {
    const chain = chainOf({ status: 'completed', events: [{ at, runId: 'r', kind: 'final_answer', agent: 'a', output: { refund: 42, ok: true } }] });
    expect(formatTimeline(chain)).toContain('answer     a: {"refund":42,"ok":true}');
  });

  it('clip flattens whitespace and ends a cut text with an ellipsis', () => {
    expect(clip('a\n  b', 10)).toBe('a b');
    expect(clip('abcdefghij', 5)).toBe('abcd…');
  });
});

describe('the Mermaid diagram', () => {
  it('gives agent ids Mermaid cannot take as node ids a node of their own', () => {
    const chain = chainOf({
      status: 'completed',
      input: { agent: 'end', input: 'go' },
      result: { output: 'x', finalAgent: 'end', handoffChain: [], usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0, modelCalls: 0, toolCalls: 0 } },
      events: [{ at, runId: 'r', kind: 'handoff_requested', from: 'end', to: 'billing dept', message: 'm', outcome: 'invalid_target' }],
    });
    expect(toMermaid(chain)).toBe(
      ['flowchart LR', '  input([input]) --> agent_end["end"]', '  agent_end["end"] -.->|"invalid target"| agent_billing_20_dept["billing dept"]', '  agent_end["end"] --> answer([answer])'].join('\n'),
    );
  });
});
