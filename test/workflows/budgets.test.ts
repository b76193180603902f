/** A chain's budgets (tokens, agents, deadline, turns, handoffs) on fake effects: what runs out, and the last turn it gives. */
import { describe, expect, it } from 'vitest';
import { BudgetExceededError, MaxHandoffsExceededError, MaxTurnsExceededError } from '../../src/common/budgetErrors';
import { runChain } from '../../workflows/loop';
import { agentSpec, FakeEffects } from '../helpers/fakeEffects';
import { call, controlled, hop } from './controlledRun';

describe('budgets', () => {
  it('fails with BudgetExceededError when the tokens run out (15 per fake call)', async () => {
    const effects = new FakeEffects({ a: [call('t'), call('t'), 'never'] }, { t: () => 'ok' });
    const err = await runChain(controlled([agentSpec('a', { toolNames: ['t'] })], effects, { maxTokens: 30 })).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(BudgetExceededError);
    expect(err).toMatchObject({
      budget: 'tokens',
      limit: 30,
      used: 30,
      agent: 'a',
      message: 'The chain ran out of its tokens budget while "a" was working (30 used of 30)',
    });
  });

  it("gives the agent one last turn without tools under onBudgetExceeded 'final_answer'", async () => {
    const effects = new FakeEffects({ a: [call('t'), call('t'), 'best effort answer'] }, { t: () => 'ok' });
    const outcome = await runChain(
      controlled([agentSpec('a', { toolNames: ['t'] })], effects, { maxTokens: 30, onBudgetExceeded: 'final_answer' }),
    );
    expect(outcome).toMatchObject({
      kind: 'completed',
      result: {
        output: 'best effort answer',
        budgetExceeded: { budget: 'tokens', limit: 30, used: 30 },
        controls: { budget_exceeded: 1 },
      },
    });
    const last = effects.modelInputs.at(-1)!;
    expect(last.tools).toEqual([]);
    expect(last.messages.at(-1)).toEqual({
      role: 'user',
      content: expect.stringMatching(/used up its tokens budget \(30 of 30\)\. No more tools/),
    });
  });

  it('refuses a handoff to a new agent past maxAgents; the tier presets the budgets', async () => {
    const agents = [agentSpec('a', { handoffs: ['b', 'c'] }), agentSpec('b', { handoffs: ['c'] }), agentSpec('c')];
    const err = await runChain(
      controlled(agents, new FakeEffects({ a: [hop('b')], b: [hop('c')] }), { maxAgents: 2 }),
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'BudgetExceededError', budget: 'agents', limit: 2, used: 2, agent: 'b' });
    const simple = await runChain(controlled(agents, new FakeEffects({ a: [hop('b')] }), { budget: 'simple' })).catch(
      (e: unknown) => e,
    );
    expect(simple).toBeInstanceOf(MaxHandoffsExceededError);
    expect(simple).toBeInstanceOf(BudgetExceededError);
    expect(simple).toMatchObject({ budget: 'handoffs', limit: 0 });
  });

  it('ends at the deadline, on workflow time', async () => {
    const effects: FakeEffects = new FakeEffects(
      { a: [call('slow'), 'late'] },
      { slow: (): string => ((effects.clock += 120_000), 'done') },
    );
    const err = await runChain(
      controlled([agentSpec('a', { toolNames: ['slow'] })], effects, { deadline: '1 minute' }),
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'BudgetExceededError', budget: 'deadline', limit: 60_000, used: 120_000 });
  });

  it('fails before the first model call when a deadline given as a time had passed before the start, saying so', async () => {
    const effects = new FakeEffects({ a: ['never asked'] });
    const deadline = new Date(effects.clock - 90_000).toISOString();
    const err = await runChain(controlled([agentSpec('a')], effects, { deadline })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BudgetExceededError);
    expect(err).toMatchObject({
      budget: 'deadline',
      limit: -90_000,
      used: 0,
      message:
        'The chain ran out of its deadline budget while "a" was working (its deadline had passed 90 s before it started)',
    });
    expect(effects.modelInputs).toEqual([]);
  });

  it('turns maxTurns and maxHandoffs into a last turn too, and MaxTurnsExceededError is a BudgetExceededError', async () => {
    const effects = new FakeEffects({ a: [call('t'), call('t'), 'wrapped up'] }, { t: () => 'ok' });
    const outcome = await runChain(
      controlled([agentSpec('a', { toolNames: ['t'] })], effects, { maxTurns: 2, onBudgetExceeded: 'final_answer' }),
    );
    expect(outcome).toMatchObject({ result: { output: 'wrapped up', budgetExceeded: { budget: 'turns', limit: 2 } } });
    const err = await runChain(
      controlled(
        [agentSpec('a', { toolNames: ['t'] })],
        new FakeEffects({ a: [call('t'), call('t')] }, { t: () => 'ok' }),
        { maxTurns: 2 },
      ),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MaxTurnsExceededError);
    expect(err).toBeInstanceOf(BudgetExceededError);
  });

  it('keeps usage per agent', async () => {
    const outcome = await runChain(
      controlled([agentSpec('a', { handoffs: ['b'] }), agentSpec('b')], new FakeEffects({ a: [hop('b')], b: ['ok'] })),
    );
    expect(outcome.kind === 'completed' && outcome.result.usageByAgent).toEqual({
      a: { inputTokens: 10, outputTokens: 5, totalTokens: 15, modelCalls: 1, toolCalls: 0 },
      b: { inputTokens: 10, outputTokens: 5, totalTokens: 15, modelCalls: 1, toolCalls: 0 },
    });
  });
});
