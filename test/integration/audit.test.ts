import { describe, expect, it } from 'vitest';
import { formatTimeline, toMermaid } from '../../src/audit/format';
import { EMPTY_OUTPUT_NUDGE, ignoredHandoffAnswer, unknownToolAnswer } from '../../src/common/answers';
import { HANDOFF_TOOL_NAME } from '../../src/common/handoff';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import {
  answeredByWorkflowTeam,
  byHandoffRequests,
  byKind,
  gatedTeam,
  kinds,
  pingPongTeam,
  supportTeam,
} from './audit.fixtures';

const server = useTemporalServer();

describe('audit from workflow history', () => {
  it('rebuilds a completed chain: input, team, turns, tools, approvals, refusals, handoffs and the answer', async () => {
    let first: { handoffId: string }[] = [];
    const audit = await withWorker(server.env, supportTeam(), async (baton) => {
      const run = await baton.start('triage', 'Please refund order 42', { retry: { initialInterval: '100 ms' } });
      first = await waitFor(
        () => run.pendingApprovals(),
        (p) => p.length === 1,
      );
      await baton.reject(run.workflowId, first[0]!.handoffId, { approver: 'bob', reason: 'ask for the order id' });
      const second = await waitFor(
        () => run.pendingApprovals(),
        (p) => p.length === 1 && p[0]!.handoffId !== first[0]!.handoffId,
      );
      await run.handle.signal('approveHandoff', { handoffId: second[0]!.handoffId, approver: 'eve' });
      await baton.approve(run.workflowId, second[0]!.handoffId, { approver: 'alice', comment: 'ok' });
      await run.result();
      return baton.audit(run.workflowId);
    });

    expect(audit).toMatchObject({
      schema: 'baton.audit/v1',
      status: 'completed',
      input: { agent: 'triage', input: 'Please refund order 42' },
      result: { output: 'Refunded order 42.', finalAgent: 'refunds' },
    });
    expect(audit.runIds).toHaveLength(1);
    expect(Object.keys(audit.team!.agents)).toEqual(['triage', 'refunds']);
    expect(kinds(audit.events)).toEqual([
      'run_started',
      'team_snapshot',
      'model_turn',
      'handoff_requested',
      'approval_requested',
      'approval_decided',
      'model_turn',
      'handoff_requested',
      'approval_requested',
      'decision_refused',
      'approval_decided',
      'handoff',
      'model_turn',
      'tool_call',
      'model_turn',
      'final_answer',
    ]);
    const [rejected, approved] = byKind(audit, 'approval_decided');
    expect(rejected).toMatchObject({
      outcome: 'rejected',
      approver: 'bob',
      reason: 'ask for the order id',
      via: 'update',
    });
    expect(approved).toMatchObject({ outcome: 'approved', approver: 'alice', comment: 'ok', via: 'update' });
    expect(Date.parse(approved!.decidedAt)).toBeGreaterThanOrEqual(Date.parse(approved!.requestedAt));
    expect(byKind(audit, 'decision_refused')[0]).toMatchObject({
      approver: 'eve',
      via: 'signal',
      reason: 'eve may not decide this handoff (approvers: alice, bob)',
    });
    expect(byKind(audit, 'approval_requested')[0]).toMatchObject({
      from: 'triage',
      to: 'refunds',
      approvers: ['alice', 'bob'],
    });

    const turns = byKind(audit, 'model_turn');
    expect(turns.map((t) => [t.agent, t.model, t.execution.attempts])).toEqual([
      ['triage', 'scripted', 1],
      ['triage', 'scripted', 1],
      ['refunds', 'scripted', 3],
      ['refunds', 'scripted', 1],
    ]);
    expect(turns[3]).toMatchObject({ inputTokens: 50, outputTokens: 7, content: 'Refunded order 42.' });
    expect(turns.every((t) => t.execution.status === 'completed' && (t.execution.latencyMs ?? -1) >= 0)).toBe(true);
    expect(byKind(audit, 'tool_call')[0]).toMatchObject({
      agent: 'refunds',
      tool: 'lookupOrder',
      arguments: '{"orderId":"42"}',
      ok: true,
      result: '{"orderId":"42","status":"delivered"}',
      execution: { status: 'completed', attempts: 1 },
    });
    expect(audit.handoffs).toHaveLength(1);
    expect(audit.handoffs[0]).toMatchObject({
      from: 'triage',
      to: 'refunds',
      message: 'refund 42, please',
      approval: { approver: 'alice' },
    });
    const [refused, executed] = byKind(audit, 'handoff_requested');
    expect(refused).toMatchObject({ to: 'refunds', outcome: 'rejected', handoffId: first[0]!.handoffId });
    expect(refused!.answer).toMatch(/^The handoff to refunds was rejected by bob: ask for the order id\./);
    expect(executed).toMatchObject({
      to: 'refunds',
      outcome: 'executed',
      index: 1,
      answer: 'Handed off to refunds (approved by alice).',
    });
    expect(JSON.parse(JSON.stringify(audit))).toEqual(audit);

    const timeline = formatTimeline(audit);
    expect(timeline).toContain(`chain ${audit.workflowId}: completed`);
    expect(timeline).toMatch(/approval +rejected by "bob" \(claimed\) via update: "ask for the order id"/);
    expect(timeline).toMatch(/approval +refused approve from "eve" \(claimed\) \(signal\): eve may not decide/);
    expect(timeline).toMatch(/handoff +#1 triage → refunds \(approved by "alice" \(claimed\)\)/);
    // Each request that waited says so; the lines after it tell how it was decided, in that order.
    expect(timeline).toMatch(
      /triage +asks to hand off to refunds: "refund 42" → waits for approval \((\S+)\)\n.*approval +asked for triage → refunds \(\1\).*\n.*approval +rejected by "bob" \(claimed\)/,
    );
    expect(timeline).toMatch(
      /triage +asks to hand off to refunds: "refund 42, please" → waits for approval \((\S+)\)\n.*approval +asked for triage → refunds \(\1\)(.*\n)+.*approval +approved by "alice" \(claimed\) via update: "ok"\n.*handoff +#1 triage → refunds \(approved by "alice" \(claimed\)\)/,
    );
    expect(timeline).toMatch(/refunds +model scripted → lookupOrder \(\d+ ms, \d+ in \/ \d+ out, 3 attempts\)/);
    expect(timeline).toMatch(/answer +refunds: "Refunded order 42\."/);

    expect(toMermaid(audit)).toBe(
      [
        'flowchart LR',
        '  input([input]) --> triage',
        '  triage -.->|"rejected by bob"| refunds',
        '  triage -->|"1 · approved by alice"| refunds',
        '  refunds --> answer([answer])',
      ].join('\n'),
    );
  });

  it('rebuilds a failed chain with the failure and its type', async () => {
    const audit = await withWorker(server.env, pingPongTeam(), async (baton) => {
      const run = await baton.start('a', 'go', { maxHandoffs: 2 });
      await run.result().catch(() => undefined);
      return baton.audit(run.workflowId);
    });
    expect(audit.status).toBe('failed');
    expect(audit.failure).toEqual({
      type: 'MaxHandoffsExceededError',
      message: 'Max handoffs (2) exceeded. Chain: a → b → a → b',
    });
    expect(audit.handoffs.map((h) => `${h.from}>${h.to}`)).toEqual(['a>b', 'b>a']);
    expect(kinds(audit.events).at(-1)).toBe('failed');
    expect(byHandoffRequests(audit.events)).toBe(3);
    expect(toMermaid(audit)).toContain('a --> failed[["MaxHandoffsExceededError"]]');
  });

  it('rebuilds a running chain, then the same chain terminated', async () => {
    await withWorker(server.env, gatedTeam(), async (baton) => {
      const run = await baton.start('a', 'go');
      await waitFor(
        () => run.pendingApprovals(),
        (p) => p.length === 1,
      );
      const running = await baton.audit(run.workflowId);
      expect(running.status).toBe('running');
      expect(running.closedAt).toBeUndefined();
      expect(kinds(running.events).slice(-2)).toEqual(['handoff_requested', 'approval_requested']);
      expect(running.handoffs).toEqual([]);
      expect(byKind(running, 'handoff_requested')[0]).toMatchObject({
        outcome: 'awaiting_approval',
        handoffId: expect.any(String),
      });
      expect(formatTimeline(running)).toMatch(/a +asks to hand off to b: "over" → waits for approval/);
      expect(toMermaid(running)).toContain('a -.->|"awaiting approval"| b');

      await run.handle.terminate('operator stopped it');
      const terminated = await baton.audit(run.workflowId);
      expect(terminated.status).toBe('terminated');
      expect(terminated.events.at(-1)).toMatchObject({ kind: 'terminated', reason: 'operator stopped it' });
      expect(byKind(terminated, 'handoff_requested')[0]).toMatchObject({
        outcome: 'abandoned',
        reason: 'the run ended while the handoff waited for approval',
      });
    });
  });
});

describe('audit of what the workflow answers itself', () => {
  it('an unknown tool, invalid handoff arguments, an invalid target, an extra handoff and an empty answer: each call with its answer, in the model order', async () => {
    const audit = await withWorker(server.env, answeredByWorkflowTeam(), async (baton) => {
      const run = await baton.start('a', 'go', { onInvalidHandoff: 'retry' });
      await run.result();
      return baton.audit(run.workflowId);
    });

    expect(audit.status).toBe('completed');
    expect(kinds(audit.events)).toEqual([
      'run_started',
      'team_snapshot',
      'model_turn',
      // The model asked for its calls here; the handoff's arguments were invalid at once, the lookup ran
      // next, and baton's answer to the unknown tool went with the next model call.
      'handoff_requested',
      'tool_call',
      'tool_call',
      'model_turn',
      'handoff_requested',
      'model_turn',
      'handoff_requested',
      'handoff_requested',
      'handoff',
      'model_turn',
      'workflow_message',
      'model_turn',
      'final_answer',
    ]);
    const [lookup, unknown] = byKind(audit, 'tool_call');
    expect(lookup).toMatchObject({
      tool: 'lookupOrder',
      answeredBy: 'tool',
      ok: true,
      execution: { status: 'completed' },
    });
    expect(unknown).toMatchObject({
      agent: 'a',
      tool: 'refundAll',
      arguments: '{}',
      answeredBy: 'workflow',
      result: unknownToolAnswer('refundAll', ['lookupOrder', HANDOFF_TOOL_NAME]),
    });
    expect(unknown!.execution).toBeUndefined();

    const [badArgs, badTarget, executed, ignored] = byKind(audit, 'handoff_requested');
    expect(badArgs).toMatchObject({
      from: 'a',
      to: '',
      outcome: 'invalid_arguments',
      arguments: '{"message":"no target"}',
    });
    expect(badArgs!.answer).toMatch(/^Error: Invalid arguments for handoff/);
    expect(badTarget).toMatchObject({ to: 'nobody', message: 'lost', outcome: 'invalid_target' });
    expect(badTarget!.answer).toMatch(/^Error: .*nobody.*Call handoff again with one of: b/);
    expect(executed).toMatchObject({ to: 'b', outcome: 'executed', index: 1, answer: 'Handed off to b.' });
    expect(ignored).toMatchObject({ to: 'a', message: 'second', outcome: 'ignored' });
    expect(ignored!.answer).toBe(
      ignoredHandoffAnswer({ id: '', name: HANDOFF_TOOL_NAME, arguments: '{"to":"b","message":"first"}' }),
    );
    expect(byKind(audit, 'workflow_message')).toEqual([
      expect.objectContaining({ agent: 'b', content: EMPTY_OUTPUT_NUDGE }),
    ]);
    expect(audit.handoffs.map((h) => `${h.from}>${h.to}`)).toEqual(['a>b']);

    const timeline = formatTimeline(audit);
    expect(timeline).toMatch(/a +tool refundAll\(\{\}\) → answered by baton: Error: unknown tool "refundAll"/);
    expect(timeline).toMatch(/a +asks to hand off to \?: "no target" → invalid arguments: Error: Invalid arguments/);
    expect(timeline).toMatch(/a +asks to hand off to nobody: "lost" → invalid target: Error:/);
    expect(timeline).toMatch(/a +asks to hand off to a: "second" → ignored/);
    expect(timeline).toMatch(/b +model scripted → empty answer/);
    expect(timeline).toMatch(/b +told by baton: "Your last answer was empty/);
    expect(toMermaid(audit)).toBe(
      [
        'flowchart LR',
        '  input([input]) --> a',
        '  a -.->|"invalid arguments"| no_target(("?"))',
        '  a -.->|"invalid target"| nobody',
        '  a -.->|"ignored: second handoff of a turn"| a',
        '  a -->|"1"| b',
        '  b --> answer([answer])',
      ].join('\n'),
    );
  });
});
