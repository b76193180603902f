import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { rebuildState } from '../../src/client/resume';
import { validateRunInput } from '../../src/common/input';
import type { HandoffRunInput } from '../../src/common/run';
import { fromPayloads, type HistoryEvent } from '../../src/payloads/read';
import { historiesFromFiles } from '../../src/worker/determinism';

const dir = path.resolve(__dirname, '../histories');
const events = (name: string): HistoryEvent[] => historiesFromFiles([path.join(dir, name)])[0]!.history.events ?? [];

describe('rebuildState folds a recorded history through the loop reducers', () => {
  it('after a failed tool: the last model answer waits to be acted on again, counted once', () => {
    const { state, from } = rebuildState(events('replay-after-tool-failure.run1.json'));
    expect(from).toBe('failed runTool');
    expect(state.agentId).toBe('b');
    expect(state.chain.map((h) => `${h.from}>${h.to}`)).toEqual(['a>b']);
    expect(state.pendingResponse?.toolCalls.map((c) => c.name)).toEqual(['ship']);
    // Two model calls happened; the second one's answer is counted when the loop acts on it.
    expect(state.turns).toBe(2);
    expect(state.callCounts).toEqual({ a: 1, b: 1 });
    expect(state.usage.modelCalls).toBe(1);
    expect(state.activationTurns).toBe(1);
    expect(state.messages.map((m) => m.role)).toEqual(['system', 'user']);
  });

  it('from handoff N: the model turn that asked for it is asked again', () => {
    const { state, from } = rebuildState(events('tools-and-handoffs.json'), 2);
    expect(from).toBe('handoff 2');
    expect(state.agentId).toBe('b');
    expect(state.chain).toHaveLength(1);
    expect(state.pendingResponse).toBeUndefined();
    expect(state.callCounts).toEqual({ a: 2 });
    expect(state.usage.toolCalls).toBe(2);
  });

  it('carries decided approvals and refuses a handoff number the run does not have', () => {
    const { state } = rebuildState(events('approval-approved-and-refused.json'));
    expect(state.approvals.pending).toEqual([]);
    expect(state.approvals.decided).toEqual([
      expect.objectContaining({ outcome: 'approved', approver: 'alice', via: 'update' }),
    ]);
    expect(() => rebuildState(events('two-agent-handoff.json'), 3)).toThrow(
      /fromHandoff must be 1 to 1 for this run, got 3/,
    );
  });

  it('starts from the state a continued run carried, and that state passes the input check', () => {
    const run2 = events('continue-as-new.run2.json');
    const input = fromPayloads<HandoffRunInput>(run2[0]!.workflowExecutionStartedEventAttributes!.input)!;
    expect(() => validateRunInput(input)).not.toThrow();
    const { state } = rebuildState(run2);
    expect(state.chain.length).toBeGreaterThan(input.resume!.chain.length);
    expect(state.turns).toBeGreaterThan(input.resume!.turns);
  });
});
