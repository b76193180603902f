import { describe, expect, it } from 'vitest';
import { EMPTY_OUTPUT_NUDGE } from '../../src/common/answers';
import { MaxHandoffsExceededError, MaxTurnsExceededError } from '../../src/common/budgetErrors';
import { EmptyOutputError, HandoffTargetNotFoundError } from '../../src/common/modelBehaviorErrors';
import { runChain } from '../../workflows/loop';
import { agentSpec, FakeEffects, fakeRun } from '../helpers/fakeEffects';

const hop = (to: string, message = `over to ${to}`) => ({ calls: [{ name: 'handoff', args: { to, message } }] });

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !check(); i++) await new Promise((r) => setTimeout(r, 0));
  expect(check()).toBe(true);
}

describe('runChain on fake effects', () => {
  it('hands off and answers: result, chain, usage, and the commands in order', async () => {
    const effects = new FakeEffects({ a: [hop('b', 'facts')], b: ['the article'] });
    const outcome = await runChain(
      fakeRun([agentSpec('a', { handoffs: ['b'] }), agentSpec('b', { handoffs: ['a'] })], effects),
    );
    expect(outcome).toMatchObject({
      kind: 'completed',
      result: {
        output: 'the article',
        finalAgent: 'b',
        handoffChain: [{ from: 'a', to: 'b', message: 'facts', turn: 1 }],
      },
    });
    if (outcome.kind !== 'completed') return;
    expect(outcome.result.usage).toEqual({
      inputTokens: 20,
      outputTokens: 10,
      totalTokens: 30,
      modelCalls: 2,
      toolCalls: 0,
    });
    expect(effects.log).toEqual(['callModel a', 'agent b 1', 'handoff a>b', 'callModel b']);
    expect(effects.modelInputs[1]!.messages).toEqual([
      { role: 'system', content: 'You are b.' },
      { role: 'user', content: 'facts' },
    ]);
    expect(effects.handoffs[0]!.summary).toBe('#1 a → b');
    expect(effects.handoffs[0]!.toolResults).toEqual([
      { toolCallId: 'c0-0', name: 'handoff', content: 'Handed off to b.' },
    ]);
  });

  it('runs a tool turn, answers every call in the model order, and lists every tool for an unknown one', async () => {
    const effects = new FakeEffects(
      {
        a: [
          {
            calls: [
              { name: 'lookup', args: { q: 'x' } },
              { name: 'nope', args: {} },
              { name: 'lookup', args: { q: 'y' } },
            ],
          },
          'done',
        ],
      },
      { lookup: ({ q }) => `found ${String(q)}` },
    );
    const outcome = await runChain(
      fakeRun([agentSpec('a', { toolNames: ['lookup'], handoffs: ['b'] }), agentSpec('b')], effects),
    );
    expect(outcome).toMatchObject({
      kind: 'completed',
      result: { output: 'done', usage: { toolCalls: 2, modelCalls: 2 } },
    });
    const tools = effects.modelInputs[1]!.messages.filter((m) => m.role === 'tool');
    expect(tools.map((m) => m.content)).toEqual([
      'found x',
      'Error: unknown tool "nope". Available tools: lookup, handoff',
      'found y',
    ]);
    expect(effects.log.filter((l) => l.startsWith('runTool'))).toEqual(['runTool a lookup', 'runTool a lookup']);
  });

  it('gives tool calls idempotency keys from workflow, agent, turn and call index, never the provider id', async () => {
    const keys: string[] = [];
    const effects = new FakeEffects(
      {
        a: [
          {
            calls: [
              { name: 'charge', args: { cents: 1 } },
              { name: 'charge', args: { cents: 1 } },
            ],
          },
          'paid',
        ],
      },
      { charge: (_args, key) => (keys.push(key), 'ok') },
    );
    await runChain(fakeRun([agentSpec('a', { toolNames: ['charge'] })], effects));
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^wf-fake:a:1\.1:[0-9a-f]{8}$/);
    expect(keys[1]).toMatch(/^wf-fake:a:1\.2:[0-9a-f]{8}$/);
  });

  it('executes the first of several handoffs in one turn and tells the model the others were ignored', async () => {
    const effects = new FakeEffects({
      a: [{ calls: [hop('b').calls[0]!, hop('c').calls[0]!] }],
      b: ['from b'],
      c: ['from c'],
    });
    const outcome = await runChain(
      fakeRun([agentSpec('a', { handoffs: ['b', 'c'] }), agentSpec('b'), agentSpec('c')], effects),
    );
    expect(outcome).toMatchObject({ result: { finalAgent: 'b' } });
    expect(effects.handoffs[0]!.toolResults.map((r) => r.content)).toEqual([
      'Handed off to b.',
      expect.stringMatching(/^Ignored: only one handoff per turn/),
    ]);
  });

  it('fails with MaxTurnsExceededError when an agent never answers', async () => {
    const effects = new FakeEffects({ a: Array.from({ length: 5 }, () => ({ calls: [{ name: 'nope', args: {} }] })) });
    await expect(runChain(fakeRun([agentSpec('a')], effects, { maxTurns: 3 }))).rejects.toBeInstanceOf(
      MaxTurnsExceededError,
    );
    expect(effects.log.filter((l) => l.startsWith('callModel'))).toHaveLength(3);
  });

  it('fails with MaxHandoffsExceededError carrying the chain', async () => {
    const effects = new FakeEffects({ a: [hop('b'), hop('b')], b: [hop('a')] });
    const failure = await runChain(
      fakeRun([agentSpec('a', { handoffs: ['b'] }), agentSpec('b', { handoffs: ['a'] })], effects, { maxHandoffs: 2 }),
    ).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(MaxHandoffsExceededError);
    expect((failure as MaxHandoffsExceededError).message).toBe('Max handoffs (2) exceeded. Chain: a → b → a → b');
  });

  it('fails on an invalid target, or with onInvalidHandoff retry tells the model the valid targets', async () => {
    const agents = () => [agentSpec('a', { handoffs: ['b'] }), agentSpec('b')];
    await expect(runChain(fakeRun(agents(), new FakeEffects({ a: [hop('x')] })))).rejects.toBeInstanceOf(
      HandoffTargetNotFoundError,
    );
    const effects = new FakeEffects({ a: [hop('x'), hop('b')], b: ['ok'] });
    const outcome = await runChain(fakeRun(agents(), effects, { onInvalidHandoff: 'retry' }));
    expect(outcome).toMatchObject({ result: { finalAgent: 'b' } });
    expect(effects.modelInputs[1]!.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: expect.stringMatching(/^Error: .*Call handoff again with one of: b$/),
    });
  });

  it('waits for approval, applies a decision queued by a handler at its next fixed point, and goes on', async () => {
    const effects = new FakeEffects({ a: [hop('b')], b: ['approved work'] });
    const run = fakeRun(
      [
        agentSpec('a', { handoffs: ['b'] }),
        agentSpec('b', { approval: { approvers: ['alice'], timeout: '1 minute' } }),
      ],
      effects,
    );
    const done = runChain(run);
    await until(() => run.chain.state.approvals.pending.length === 1);
    expect(effects.status).toBe('awaiting_approval');
    const { handoffId } = run.chain.state.approvals.pending[0]!;
    run.desk.receive({ handoffId, approver: 'mallory' }, 'approve');
    run.desk.receive({ handoffId, approver: 'alice', comment: 'fine' }, 'approve');
    const outcome = await done;
    expect(outcome).toMatchObject({
      result: {
        handoffChain: [{ approval: { approver: 'alice', outcome: 'approved', via: 'signal', comment: 'fine' } }],
      },
    });
    expect(effects.log).toEqual([
      'callModel a',
      'memo approval_requested',
      'status awaiting_approval',
      'timer 60000',
      'memo decision_refused',
      'memo approval_decided',
      'status running',
      'cancel timer',
      'agent b 1',
      'handoff a>b',
      'callModel b',
    ]);
  });

  it('applies the timeout policy when the timer fires, unless a decision arrived with it', async () => {
    const agents = () => [
      agentSpec('a', { handoffs: ['b'] }),
      agentSpec('b', { approval: { timeout: '1 minute', onTimeout: 'reject' } }),
    ];
    const effects = new FakeEffects({ a: [hop('b'), 'did it myself'] });
    const run = fakeRun(agents(), effects);
    const done = runChain(run);
    await until(() => effects.log.includes('timer 60000'));
    effects.fireTimer();
    await expect(done).resolves.toMatchObject({ result: { output: 'did it myself', handoffChain: [] } });
    expect(effects.modelInputs[1]!.messages.at(-1)).toMatchObject({
      content: 'The handoff to b was not approved in time. Continue without it: answer yourself or hand off elsewhere.',
    });

    const racing = new FakeEffects({ a: [hop('b')], b: ['went ahead'] });
    const raced = fakeRun(agents(), racing);
    const result = runChain(raced);
    await until(() => racing.log.includes('timer 60000'));
    raced.desk.receive({ handoffId: raced.chain.state.approvals.pending[0]!.handoffId, approver: 'bob' }, 'approve');
    racing.fireTimer();
    await expect(result).resolves.toMatchObject({
      result: { finalAgent: 'b', handoffChain: [{ approval: { outcome: 'approved', approver: 'bob' } }] },
    });
  });

  it('sends an empty answer back once, then fails with EmptyOutputError', async () => {
    const nudged = new FakeEffects({ a: ['', 'a real answer'] });
    await expect(runChain(fakeRun([agentSpec('a')], nudged))).resolves.toMatchObject({
      result: { output: 'a real answer' },
    });
    expect(nudged.modelInputs[1]!.messages.at(-1)).toEqual({ role: 'user', content: EMPTY_OUTPUT_NUDGE });
    await expect(runChain(fakeRun([agentSpec('a')], new FakeEffects({ a: ['', '  '] })))).rejects.toBeInstanceOf(
      EmptyOutputError,
    );
    await expect(
      runChain(fakeRun([agentSpec('a')], new FakeEffects({ a: [''] }), { onEmptyOutput: 'accept' })),
    ).resolves.toMatchObject({ result: { output: '' } });
  });

  it('applies overrides queued by a handler before the next model turn', async () => {
    const effects = new FakeEffects({ a: [hop('b')], b: [hop('a')], c: [] });
    const run = fakeRun([agentSpec('a', { handoffs: ['b'] }), agentSpec('b', { handoffs: ['a'] })], effects, {
      maxHandoffs: 5,
    });
    run.desk.receiveOverrides({ options: { maxHandoffs: 1 } });
    run.desk.receiveOverrides({ options: { maxHandoffs: -1 } });
    await expect(runChain(run)).rejects.toBeInstanceOf(MaxHandoffsExceededError);
    expect(effects.log.slice(0, 3)).toEqual(['memo overrides_applied', 'memo overrides_refused', 'callModel a']);
  });

  it('continues as new only after a step of its own, then hands over', async () => {
    const effects = new FakeEffects({ a: [hop('b')], b: ['never asked'] });
    effects.continueAsNew = true;
    const outcome = await runChain(fakeRun([agentSpec('a', { handoffs: ['b'] }), agentSpec('b')], effects));
    expect(outcome).toEqual({ kind: 'continue_as_new' });
    expect(effects.log).toEqual(['callModel a', 'agent b 1', 'handoff a>b']);
  });
});
