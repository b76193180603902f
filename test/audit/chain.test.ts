import { describe, expect, it } from 'vitest';
import { HandoffRequestOutcome } from '../../src/audit/chain';
import { ignoredHandoffAnswer } from '../../src/common/answers';
import { auditOf, eventsOf, kinds } from './recorded';

describe('the audit read from recorded histories, no server', () => {
  it('a completed chain: status, team, turns, the handoff as asked and as executed, the answer', () => {
    const audit = auditOf('two-agent-handoff.json');
    expect(audit).toMatchObject({
      schema: 'baton.audit/v1',
      status: 'completed',
      input: { agent: 'researcher', input: 'quantum' },
      result: { output: 'article', finalAgent: 'writer' },
    });
    expect(audit.closedAt).toBeDefined();
    expect(audit.stuck).toBeUndefined();
    expect(Object.keys(audit.team!.agents)).toEqual(['researcher', 'writer']);
    expect(kinds(audit)).toEqual([
      'run_started',
      'team_snapshot',
      'model_turn',
      'handoff_requested',
      'handoff',
      'model_turn',
      'final_answer',
    ]);
    expect(eventsOf(audit, 'handoff_requested')).toEqual([
      expect.objectContaining({
        from: 'researcher',
        to: 'writer',
        message: 'facts',
        outcome: HandoffRequestOutcome.EXECUTED,
        index: 1,
        answer: 'Handed off to writer.',
      }),
    ]);
    expect(audit.handoffs).toEqual([expect.objectContaining({ from: 'researcher', to: 'writer', turn: 1 })]);
    expect(JSON.parse(JSON.stringify(audit))).toEqual(audit);
  });

  it('tool calls and an extra handoff in one turn: every call in the model order, the extra one ignored with its answer', () => {
    const audit = auditOf('tools-and-handoffs.json');
    const tools = eventsOf(audit, 'tool_call');
    expect(tools.map((t) => [t.tool, t.arguments, t.answeredBy, t.result, t.execution?.status])).toEqual([
      ['lookup', '{"q":"x"}', 'tool', '{"found":"x"}', 'completed'],
      ['lookup', '{"q":"y"}', 'tool', '{"found":"y"}', 'completed'],
    ]);
    const requests = eventsOf(audit, 'handoff_requested');
    expect(requests.map((r) => [r.from, r.to, r.outcome, r.index])).toEqual([
      ['a', 'b', 'executed', 1],
      ['b', 'c', 'executed', 2],
      ['b', 'a', 'ignored', undefined],
    ]);
    expect(requests[2]!.answer).toBe(
      ignoredHandoffAnswer({ id: '', name: 'handoff', arguments: '{"to":"c","message":"first"}' }),
    );
    expect(eventsOf(audit, 'model_turn').at(-1)).toMatchObject({
      agent: 'c',
      execution: { status: 'completed', attempts: 2 },
    });
    expect(audit.handoffs.map((h) => `${h.from}>${h.to}`)).toEqual(['a>b', 'b>c']);
  });

  it('approvals: a refused decision, then an approval; the handoff says it waited and was executed', () => {
    const audit = auditOf('approval-approved-and-refused.json');
    const [requested] = eventsOf(audit, 'handoff_requested');
    const [asked] = eventsOf(audit, 'approval_requested');
    expect(requested).toMatchObject({ outcome: 'executed', index: 1, handoffId: asked!.handoffId });
    expect(eventsOf(audit, 'decision_refused')).toEqual([
      expect.objectContaining({
        approver: 'mallory',
        via: 'signal',
        reason: 'mallory may not decide this handoff (approvers: alice)',
      }),
    ]);
    expect(eventsOf(audit, 'approval_decided')).toEqual([
      expect.objectContaining({ outcome: 'approved', approver: 'alice', comment: 'fine', via: 'update' }),
    ]);
    expect(audit.handoffs[0]!.approval).toMatchObject({ approver: 'alice' });
  });

  it('a rejected handoff does not look like one that happened', () => {
    const audit = auditOf('approval-rejected-by-signal.json');
    expect(audit.handoffs).toEqual([]);
    expect(kinds(audit)).not.toContain('handoff');
    const [requested] = eventsOf(audit, 'handoff_requested');
    expect(requested).toMatchObject({ from: 'a', to: 'b', outcome: 'rejected' });
    expect(requested!.index).toBeUndefined();
    expect(requested!.answer).toMatch(/^The handoff to b was rejected by bob: no\./);
    expect(audit.result).toMatchObject({ finalAgent: 'a', output: 'did it myself' });
  });

  it('a timeout whose policy approves: executed, not refused', () => {
    const audit = auditOf('approval-timeout-approves.json');
    expect(eventsOf(audit, 'approval_decided')[0]).toMatchObject({
      outcome: 'timed_out',
      onTimeout: 'approve',
      via: 'timeout',
    });
    expect(eventsOf(audit, 'handoff_requested')[0]).toMatchObject({ outcome: 'executed', index: 1 });
  });

  it('a handoff refused by maxHandoffs when the run failed', () => {
    const audit = auditOf('max-handoffs-failed.json');
    expect(audit.status).toBe('failed');
    expect(audit.failure).toEqual({
      type: 'MaxHandoffsExceededError',
      message: 'Max handoffs (2) exceeded. Chain: a → b → a → b',
    });
    const requests = eventsOf(audit, 'handoff_requested');
    expect(requests.map((r) => r.outcome)).toEqual(['executed', 'executed', 'refused']);
    expect(requests[2]).toMatchObject({ from: 'a', to: 'b', reason: audit.failure!.message });
    expect(audit.handoffs).toHaveLength(2);
    expect(kinds(audit).at(-1)).toBe('failed');
  });

  it('a failed tool call, and the reset run that replayed it', () => {
    const failed = auditOf('replay-after-tool-failure.run1.json');
    expect(failed).toMatchObject({ status: 'failed', failure: { type: 'ToolExecutionError' } });
    expect(eventsOf(failed, 'tool_call')[0]).toMatchObject({
      tool: 'ship',
      answeredBy: 'tool',
      execution: { status: 'failed', error: 'carrier down' },
    });

    const replayed = auditOf('replay-after-tool-failure.run2.json');
    expect(replayed.status).toBe('completed');
    expect(replayed.lineage).toEqual([
      expect.objectContaining({ reason: expect.stringContaining('baton replay from failed runTool') }),
    ]);
    expect(eventsOf(replayed, 'tool_call')).toEqual([
      expect.objectContaining({ tool: 'ship', ok: true, result: 'shipped' }),
    ]);
  });

  it('continue-as-new: three runs read as one chain, handoffs numbered across runs', () => {
    const audit = auditOf('continue-as-new.run1.json', 'continue-as-new.run2.json', 'continue-as-new.run3.json');
    expect(audit.status).toBe('completed');
    expect(audit.runIds).toEqual(['run-1', 'run-2', 'run-3']);
    expect(audit.handoffs).toHaveLength(7);
    expect(eventsOf(audit, 'handoff').map((h) => h.index)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(eventsOf(audit, 'handoff_requested').every((r) => r.outcome === 'executed')).toBe(true);
    expect(eventsOf(audit, 'continued_as_new').map((e) => e.runId)).toEqual(['run-1', 'run-2']);
    expect(eventsOf(audit, 'run_started')).toHaveLength(3);
    expect(audit.result).toMatchObject({ output: 'long chain done', finalAgent: 'b' });

    expect(auditOf('continue-as-new.run1.json').status).toBe('continued_as_new');
  });

  it('an approval decided in the same workflow task as the model answer that asked for it; the stuck run after it', () => {
    const audit = auditOf('before-controls/stuck-after-server-restart.json');
    expect(audit.status).toBe('running');
    expect(audit.closedAt).toBeUndefined();
    // The signal is in history before the approval was asked for: the workflow applies it after.
    expect(audit.events.map((e) => e.kind).slice(2, 9)).toEqual([
      'model_turn',
      'handoff_requested',
      'signal',
      'approval_requested',
      'approval_decided',
      'handoff',
      'model_turn',
    ]);
    const [asked] = eventsOf(audit, 'approval_requested');
    expect(eventsOf(audit, 'approval_decided')).toEqual([
      expect.objectContaining({ handoffId: asked!.handoffId, outcome: 'approved', approver: 'drill', via: 'signal' }),
    ]);
    expect(eventsOf(audit, 'handoff_requested')).toEqual([
      expect.objectContaining({
        from: 'triage',
        to: 'refunds',
        outcome: 'executed',
        index: 1,
        handoffId: asked!.handoffId,
        answer: 'Handed off to refunds (approved by drill).',
      }),
    ]);
    expect(audit.handoffs).toEqual([
      expect.objectContaining({
        from: 'triage',
        to: 'refunds',
        approval: expect.objectContaining({ approver: 'drill' }),
      }),
    ]);
    expect(eventsOf(audit, 'tool_call')).toEqual([
      expect.objectContaining({
        agent: 'refunds',
        tool: 'lookupOrder',
        answeredBy: 'tool',
        execution: { status: 'not_scheduled', attempts: 0 },
      }),
    ]);
    expect(eventsOf(audit, 'workflow_task_failed')).toEqual([
      expect.objectContaining({
        cause: 'WORKFLOW_TASK_FAILED_CAUSE_WORKFLOW_WORKER_UNHANDLED_FAILURE',
        message: 'Unexpected notifyHasPatch job on non-replay activation',
      }),
    ]);
    expect(audit.stuck).toEqual({
      since: expect.any(String),
      error: 'Unexpected notifyHasPatch job on non-replay activation',
    });
  });

  it('histories from before the handoff memo: handoffs from the recordHandoff activity', () => {
    const audit = auditOf('before-handoff-memo/tools-and-handoffs.json');
    expect(audit.handoffs.map((h) => `${h.from}>${h.to}`)).toEqual(['a>b', 'b>c']);
    expect(eventsOf(audit, 'handoff_requested').map((r) => r.outcome)).toEqual(['executed', 'executed', 'ignored']);
    expect(eventsOf(audit, 'tool_call')).toHaveLength(2);
  });
});
