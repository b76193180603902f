import { describe, expect, it } from 'vitest';
import { HandoffRequestOutcome } from '../../src/audit/chain';
import { formatTimeline } from '../../src/audit/format';
import { EMPTY_OUTPUT_NUDGE, handedOffAnswer, invalidTargetAnswer, unknownToolAnswer } from '../../src/common/answers';
import { HANDOFF_TOOL_NAME } from '../../src/common/handoff';
import type { ChainState } from '../../src/common/state';
import { HistoryBuilder } from './synthetic';
import { answer, assistant, audit, call, of, opening, result, team, toolAnswers, toolsOf } from './turns.fixtures';

describe('calls the workflow answers itself, read from history', () => {
  it('matches answers by position when the provider gives every call the same id, and shows what baton told the model', () => {
    const calls = [
      call('', 'lookup', { q: 1 }),
      call('', 'nosuch', {}),
      call('', HANDOFF_TOOL_NAME, { to: 'zed', message: 'm' }),
    ];
    const first = answer(calls);
    const empty = answer([], '');
    const texts = [
      'found',
      unknownToolAnswer('nosuch', ['lookup', HANDOFF_TOOL_NAME]),
      invalidTargetAnswer('zed is not a target', HANDOFF_TOOL_NAME, ['b']),
    ];
    const afterTools = [...opening('a', 'go'), assistant(first), ...toolAnswers(calls, texts)];
    const run = new HistoryBuilder()
      .started({ agent: 'a', input: 'go' })
      .team(team)
      .model(
        { agentId: 'a', model: team.agents.a!.model, messages: opening('a', 'go'), tools: toolsOf('a'), callIndex: 0 },
        first,
      )
      .tool({ agentId: 'a', call: calls[0]!, idempotencyKey: 'k' }, { ok: true, content: 'found' })
      .model(
        { agentId: 'a', model: team.agents.a!.model, messages: afterTools, tools: toolsOf('a'), callIndex: 1 },
        empty,
      )
      .model(
        {
          agentId: 'a',
          model: team.agents.a!.model,
          messages: [...afterTools, assistant(empty), { role: 'user', content: EMPTY_OUTPUT_NUDGE }],
          tools: toolsOf('a'),
          callIndex: 2,
        },
        answer([], 'fine'),
      )
      .completed(result('fine', 'a'));
    const chain = audit(run);

    // In history order: the handoff asked for with the model's answer, the tool where it ran, the unknown tool where baton answered it.
    expect(chain.events.map((e) => e.kind)).toEqual([
      'run_started',
      'team_snapshot',
      'model_turn',
      'handoff_requested',
      'tool_call',
      'tool_call',
      'model_turn',
      'workflow_message',
      'model_turn',
      'final_answer',
    ]);
    const [lookup, unknown] = of(chain, 'tool_call');
    expect(lookup).toMatchObject({
      tool: 'lookup',
      answeredBy: 'tool',
      result: 'found',
      execution: { status: 'completed', attempts: 1 },
    });
    expect(lookup!.callId).toBeUndefined();
    expect(unknown).toMatchObject({ tool: 'nosuch', answeredBy: 'workflow', result: texts[1] });
    expect(of(chain, 'handoff_requested')).toEqual([
      expect.objectContaining({ to: 'zed', outcome: HandoffRequestOutcome.INVALID_TARGET, answer: texts[2] }),
    ]);
    expect(of(chain, 'workflow_message')).toEqual([
      expect.objectContaining({ agent: 'a', content: EMPTY_OUTPUT_NUDGE }),
    ]);
    expect(formatTimeline(chain)).toMatch(/a +model m → empty answer/);
  });

  it('a handoff to an allowed target that a control answered instead is refused, with what the model was told', () => {
    const calls = [call('c1', HANDOFF_TOOL_NAME, { to: 'b', message: 'go on' })];
    const first = answer(calls);
    const told = 'Error: the circuit to b is open. Answer yourself.';
    const run = new HistoryBuilder()
      .started({ agent: 'a', input: 'go' })
      .team(team)
      .model(
        { agentId: 'a', model: team.agents.a!.model, messages: opening('a', 'go'), tools: toolsOf('a'), callIndex: 0 },
        first,
      )
      .model(
        {
          agentId: 'a',
          model: team.agents.a!.model,
          messages: [...opening('a', 'go'), assistant(first), ...toolAnswers(calls, [told])],
          tools: toolsOf('a'),
          callIndex: 1,
        },
        answer([], 'ok'),
      )
      .completed(result('ok', 'a'));
    expect(of(audit(run), 'handoff_requested')).toEqual([
      expect.objectContaining({ to: 'b', callId: 'c1', outcome: HandoffRequestOutcome.REFUSED, answer: told }),
    ]);
  });

  it('a handoff that waits for approval across continue-as-new, decided and executed in the next run', () => {
    const calls = [call('c1', HANDOFF_TOOL_NAME, { to: 'b', message: 'over' })];
    const first = answer(calls);
    const requested = {
      handoffId: 'h1',
      from: 'a',
      to: 'b',
      message: 'over',
      requestedAt: '2026-01-01T00:00:00.000Z',
      onTimeout: 'reject',
    };
    const run1 = new HistoryBuilder()
      .started({ agent: 'a', input: 'go' })
      .team(team)
      .model(
        { agentId: 'a', model: team.agents.a!.model, messages: opening('a', 'go'), tools: toolsOf('a'), callIndex: 0 },
        first,
      )
      .approvalEvent({ type: 'approval_requested', ...requested })
      .continuedAsNew();
    const record = {
      from: 'a',
      to: 'b',
      message: 'over',
      timestamp: '2026-01-01T00:00:01.000Z',
      turn: 1,
      approval: {
        handoffId: 'h1',
        outcome: 'approved' as const,
        approver: 'ann',
        requestedAt: '',
        decidedAt: '',
        via: 'signal' as const,
      },
    };
    const run2 = new HistoryBuilder()
      .started({ agent: 'a', input: 'go', resume: { team, agentId: 'a' } as ChainState })
      .approvalEvent({ type: 'approval_decided', ...record.approval })
      .handoff({
        handoff: record,
        index: 1,
        toolResults: [
          { toolCallId: 'c1', name: HANDOFF_TOOL_NAME, content: handedOffAnswer('b', { approver: 'ann' }) },
        ],
      })
      .model(
        {
          agentId: 'b',
          model: team.agents.b!.model,
          messages: opening('b', 'over'),
          tools: toolsOf('b'),
          callIndex: 0,
        },
        answer([], 'done'),
      )
      .completed(result('done', 'b'));

    expect(of(audit(run1), 'handoff_requested')).toEqual([
      expect.objectContaining({ outcome: HandoffRequestOutcome.AWAITING_APPROVAL, handoffId: 'h1' }),
    ]);
    const both = audit(run1, run2);
    expect(of(both, 'handoff_requested')).toEqual([
      expect.objectContaining({
        runId: 'run-1',
        outcome: HandoffRequestOutcome.EXECUTED,
        index: 1,
        handoffId: 'h1',
        answer: 'Handed off to b (approved by ann).',
      }),
    ]);
    expect(both.handoffs).toHaveLength(1);
  });

  it("a replay that acts again on a recorded model answer: the answer's calls come from the resumed state", () => {
    const calls = [call('c1', 'lookup', { q: 2 }), call('c2', 'nosuch', {})];
    const pending = answer(calls);
    const messages = opening('a', 'go');
    const resume = {
      team,
      agentId: 'a',
      messages,
      chain: [],
      pendingResponse: pending,
      replayOf: { workflowId: 'wf', runId: 'base', from: 'failed runTool' },
    } as unknown as ChainState;
    const texts = ['found', unknownToolAnswer('nosuch', ['lookup', HANDOFF_TOOL_NAME])];
    const run = new HistoryBuilder()
      .started({ agent: 'a', input: 'go', resume })
      .tool({ agentId: 'a', call: calls[0]!, idempotencyKey: 'k' }, { ok: true, content: 'found' })
      .model(
        {
          agentId: 'a',
          model: team.agents.a!.model,
          messages: [...messages, assistant(pending), ...toolAnswers(calls, texts)],
          tools: toolsOf('a'),
          callIndex: 1,
        },
        answer([], 'ok'),
      )
      .completed(result('ok', 'a'));
    const chain = audit(run);
    expect(chain.lineage).toEqual([expect.objectContaining({ replayedFrom: 'base' })]);
    expect(of(chain, 'tool_call').map((t) => [t.tool, t.answeredBy, t.result])).toEqual([
      ['lookup', 'tool', 'found'],
      ['nosuch', 'workflow', texts[1]],
    ]);
  });

  it('a tool call the run never scheduled, and a handoff it never weighed, when a tool of the same turn failed the run', () => {
    const calls = [call('c1', 'lookup', { q: 3 }), call('c2', HANDOFF_TOOL_NAME, { to: 'b', message: 'm' })];
    const run = new HistoryBuilder()
      .started({ agent: 'a', input: 'go' })
      .team(team)
      .model(
        { agentId: 'a', model: team.agents.a!.model, messages: opening('a', 'go'), tools: toolsOf('a'), callIndex: 0 },
        answer(calls),
      )
      .failed('ToolExecutionError', 'Tool "lookup" of agent "a" failed: down');
    const chain = audit(run);
    expect(of(chain, 'tool_call')).toEqual([
      expect.objectContaining({ tool: 'lookup', execution: { status: 'not_scheduled', attempts: 0 } }),
    ]);
    expect(of(chain, 'handoff_requested')).toEqual([
      expect.objectContaining({
        outcome: HandoffRequestOutcome.ABANDONED,
        reason: 'Tool "lookup" of agent "a" failed: down',
      }),
    ]);
    expect(formatTimeline(chain)).toMatch(/a +tool lookup\({"q":3}\) not run: the run ended first/);
  });

  it('routine workflow task failures are not events; a task failure that ends the history marks the chain stuck', () => {
    const base = () => new HistoryBuilder().started({ agent: 'a', input: 'go' }).team(team);
    const routine = audit(base().taskFailed('WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND', 'new events arrived'));
    expect(of(routine, 'workflow_task_failed')).toEqual([]);
    expect(routine.stuck).toBeUndefined();
    const stuck = audit(base().taskFailed('WORKFLOW_TASK_FAILED_CAUSE_NON_DETERMINISTIC_ERROR', 'nondeterminism'));
    expect(of(stuck, 'workflow_task_failed')).toEqual([
      expect.objectContaining({
        cause: 'WORKFLOW_TASK_FAILED_CAUSE_NON_DETERMINISTIC_ERROR',
        message: 'nondeterminism',
      }),
    ]);
    expect(stuck.stuck).toMatchObject({ error: 'nondeterminism' });
  });
});
