import { describe, expect, it } from 'vitest';
import { MaxHandoffsExceededError, MaxTurnsExceededError } from '../../../src/common/budgetErrors';
import { UnconsumedScriptStepsError } from '../../../src/common/errors';
import {
  EmptyOutputError,
  HandoffTargetNotFoundError,
  OutputValidationError,
} from '../../../src/common/modelBehaviorErrors';
import { resolveRunOptions, type RunOptions } from '../../../src/common/options';
import type { ChainState } from '../../../src/common/state';
import type { AgentSpec } from '../../../src/common/team';
import { startChain } from '../../../workflows/chain/state';
import { approvalGuard, resolveApprovalPolicy } from '../../../workflows/guards/approvals';
import { emptyOutputGuard } from '../../../workflows/guards/emptyOutput';
import { CONTINUE } from '../../../workflows/chain/verdict';
import { Guards } from '../../../workflows/guards/guard';
import { handoffLimitGuard, turnLimitGuard } from '../../../workflows/guards/limits';
import { outputTypeGuard } from '../../../workflows/guards/outputType';
import { scriptGuard } from '../../../workflows/guards/scripts';
import { agentSpec } from '../../helpers/fakeEffects';

function state(agents: AgentSpec[], options: RunOptions = {}, patch: Partial<ChainState> = {}): ChainState {
  const team = { agents: Object.fromEntries(agents.map((a) => [a.id, a])), approvals: [], hasHandoffListeners: false };
  return { ...startChain(team, agents[0]!.id, 'go', resolveRunOptions(options)), ...patch };
}
const h = (from: string, to: string) => ({ kind: 'handoff' as const, from, to, message: 'm' });
const record = (from: string, to: string) => ({
  from,
  to,
  message: 'm',
  timestamp: '2026-01-01T00:00:00.000Z',
  turn: 1,
});

describe('turnLimitGuard', () => {
  it('fails the activation that has used maxTurns model turns', () => {
    expect(turnLimitGuard.beforeModelCall!(state([agentSpec('a')], { maxTurns: 2 }, { activationTurns: 1 }))).toBe(
      CONTINUE,
    );
    const verdict = turnLimitGuard.beforeModelCall!(state([agentSpec('a')], { maxTurns: 2 }, { activationTurns: 2 }));
    expect(verdict).toMatchObject({ kind: 'fail', error: expect.any(MaxTurnsExceededError) });
  });
});

describe('handoffLimitGuard', () => {
  const agents = [agentSpec('a', { handoffs: ['b'] }), agentSpec('b', { handoffs: [] }), agentSpec('c')];

  it('lets an allowed handoff go', () => {
    expect(handoffLimitGuard.beforeHandoff!(state(agents), h('a', 'b'))).toBe(CONTINUE);
  });

  it('fails a target that is not allowed or not registered, naming the allowed ones', () => {
    for (const to of ['c', 'zz']) {
      const verdict = handoffLimitGuard.beforeHandoff!(state(agents), h('a', to));
      expect(verdict).toMatchObject({ kind: 'fail', error: expect.any(HandoffTargetNotFoundError) });
      expect(verdict.kind === 'fail' && (verdict.error as HandoffTargetNotFoundError).available).toEqual(['b']);
    }
  });

  it('with onInvalidHandoff retry, answers the model until the retries are used up', () => {
    const retry = handoffLimitGuard.beforeHandoff!(
      state(agents, { onInvalidHandoff: 'retry', maxInvalidHandoffRetries: 1 }),
      h('a', 'c'),
    );
    expect(retry).toMatchObject({ kind: 'retry', event: { type: 'invalid_handoff_answered' } });
    const spent = handoffLimitGuard.beforeHandoff!(
      state(agents, { onInvalidHandoff: 'retry', maxInvalidHandoffRetries: 1 }, { invalidHandoffs: 1 }),
      h('a', 'c'),
    );
    expect(spent.kind).toBe('fail');
  });

  it('fails past maxHandoffs, with the refused hop in the chain path', () => {
    const verdict = handoffLimitGuard.beforeHandoff!(
      state(agents, { maxHandoffs: 1 }, { chain: [record('a', 'b')] }),
      h('a', 'b'),
    );
    expect(verdict).toMatchObject({ kind: 'fail', error: expect.any(MaxHandoffsExceededError) });
    expect(verdict.kind === 'fail' && verdict.error.message).toBe('Max handoffs (1) exceeded. Chain: a → b → b');
  });
});

describe('approvals', () => {
  const agents = [agentSpec('a', { handoffs: ['b'] }), agentSpec('b', { approval: { approvers: ['alice'] } })];

  it('waits under the target agent policy', () => {
    expect(approvalGuard.beforeHandoff!(state(agents), h('a', 'b'))).toEqual({
      kind: 'wait',
      policy: { approvers: ['alice'] },
    });
  });

  it('lets run rules beat team rules, edge rules beat target rules, and required false switch approval off', () => {
    const team = {
      agents: Object.fromEntries(agents.map((a) => [a.id, a])),
      approvals: [
        { to: 'b', approvers: ['team'] },
        { from: 'a', to: 'b', approvers: ['edge'] },
      ],
      hasHandoffListeners: false,
    };
    expect(resolveApprovalPolicy(team, [], 'a', 'b')).toMatchObject({ approvers: ['edge'] });
    expect(resolveApprovalPolicy(team, [], 'c', 'b')).toMatchObject({ approvers: ['team'] });
    expect(resolveApprovalPolicy(team, [{ to: 'b', approvers: ['run'] }], 'a', 'b')).toMatchObject({
      approvers: ['run'],
    });
    expect(resolveApprovalPolicy(team, [{ to: 'b', required: false }], 'a', 'b')).toBeUndefined();
  });
});

describe('on finish', () => {
  it('asks once more after an empty answer, then fails; accepts it when told to', () => {
    const a = [agentSpec('a')];
    expect(emptyOutputGuard.onFinish!(state(a), { text: 'an answer' })).toBe(CONTINUE);
    expect(emptyOutputGuard.onFinish!(state(a), { text: ' ' })).toMatchObject({
      kind: 'retry',
      event: { type: 'answer_refused', guard: 'emptyOutput' },
    });
    expect(emptyOutputGuard.onFinish!(state(a, {}, { answerRetries: { emptyOutput: 1 } }), { text: '' })).toMatchObject(
      { kind: 'fail', error: expect.any(EmptyOutputError) },
    );
    expect(emptyOutputGuard.onFinish!(state(a, { onEmptyOutput: 'accept' }), { text: '' })).toBe(CONTINUE);
  });

  it('sends an answer that misses the output type back with the problem, then fails', () => {
    const a = [agentSpec('a')];
    const bad = { text: '{"n": "x"}', checked: { error: 'n: expected number' } };
    expect(outputTypeGuard.onFinish!(state(a), { text: '{"n": 1}', checked: { value: { n: 1 } } })).toBe(CONTINUE);
    expect(outputTypeGuard.onFinish!(state(a, { maxOutputRetries: 1 }), bad)).toMatchObject({
      kind: 'retry',
      message: expect.stringMatching(/n: expected number/),
    });
    expect(
      outputTypeGuard.onFinish!(state(a, { maxOutputRetries: 1 }, { answerRetries: { outputType: 1 } }), bad),
    ).toMatchObject({ kind: 'fail', error: expect.any(OutputValidationError) });
  });

  it('fails a chain that leaves scripted steps unused', () => {
    const scripted = agentSpec('a', {
      model: {
        provider: 'scripted',
        model: 's',
        steps: [{ text: '1' }, { text: '2' }],
        rules: [],
        requireAllSteps: true,
      },
    });
    const verdict = scriptGuard.onComplete!(state([scripted], {}, { callCounts: { a: 1 } }));
    expect(verdict).toMatchObject({ kind: 'fail', error: expect.any(UnconsumedScriptStepsError) });
    expect(scriptGuard.onComplete!(state([scripted], {}, { callCounts: { a: 2 } }))).toBe(CONTINUE);
  });

  it('asks guards in order: the first answer other than continue counts', () => {
    const guards = new Guards([
      { name: 'quiet' },
      emptyOutputGuard,
      { name: 'never', onFinish: () => ({ kind: 'fail', error: new EmptyOutputError('x', 9) }) },
    ]);
    expect(guards.onFinish(state([agentSpec('a')]), { text: '' }).kind).toBe('retry');
    expect(guards.onFinish(state([agentSpec('a')]), { text: 'ok' }).kind).toBe('fail');
  });
});
