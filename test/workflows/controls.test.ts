import { describe, expect, it } from 'vitest';
import { MaxHandoffsExceededError } from '../../src/common/budgetErrors';
import { GuardrailTrippedError } from '../../src/common/errors';
import { HandoffLoopDetectedError } from '../../src/common/modelBehaviorErrors';
import { runChain } from '../../workflows/loop';
import { agentSpec, FakeEffects, fakeRun } from '../helpers/fakeEffects';
import { call, controlled, hop } from './controlledRun';

const memoEvents = (effects: FakeEffects) =>
  effects.memos
    .map((m) => m.batonApprovalEvent as Record<string, unknown> | undefined)
    .filter((e): e is Record<string, unknown> => e?.type === 'control');

describe('loop detection', () => {
  it('fails a ping-pong with the same message before maxHandoffs, naming the cycle', async () => {
    const [a, b] = [agentSpec('a', { handoffs: ['b'] }), agentSpec('b', { handoffs: ['a'] })];
    const effects = new FakeEffects({ a: [hop('b', 'yours'), hop('b', 'yours')], b: [hop('a', 'no, yours')] });
    const err = await runChain(controlled([a, b], effects, { maxHandoffs: 10 })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HandoffLoopDetectedError);
    expect(err).toMatchObject({ from: 'a', to: 'b', pattern: 'repeat', cycle: ['a', 'b', 'a', 'b'] });
    expect(memoEvents(effects)).toEqual([
      expect.objectContaining({ control: 'loop_detected', from: 'a', to: 'b', refused: false }),
    ]);
  });

  it('fails A → B → A → B with new messages but no tool run in between', async () => {
    const effects = new FakeEffects({
      a: [hop('b', 'one'), hop('b', 'three')],
      b: [hop('a', 'two'), hop('a', 'four')],
    });
    const err = await runChain(
      controlled([agentSpec('a', { handoffs: ['b'] }), agentSpec('b', { handoffs: ['a'] })], effects),
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({
      name: 'HandoffLoopDetectedError',
      pattern: 'oscillation',
      cycle: ['a', 'b', 'a', 'b', 'a'],
    });
  });

  it('lets A → B → A → B through when a tool ran in between', async () => {
    const effects = new FakeEffects(
      { a: [hop('b', 'one'), call('lookup'), hop('b', 'three'), 'done'], b: [hop('a', 'two'), hop('a', 'four')] },
      { lookup: () => 'found' },
    );
    const outcome = await runChain(
      controlled(
        [agentSpec('a', { handoffs: ['b'], toolNames: ['lookup'] }), agentSpec('b', { handoffs: ['a'] })],
        effects,
      ),
    );
    expect(outcome).toMatchObject({ kind: 'completed', result: { output: 'done' } });
  });

  it("refuses a loop with onLoop 'refuse', tells the model, and fails after maxLoopRefusals", async () => {
    const effects = new FakeEffects({
      a: [hop('b', 'same'), hop('b', 'same'), hop('b', 'same')],
      b: [hop('a', 'back')],
    });
    const err = await runChain(
      controlled([agentSpec('a', { handoffs: ['b'] }), agentSpec('b', { handoffs: ['a'] })], effects, {
        onLoop: 'refuse',
        maxLoopRefusals: 1,
      }),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HandoffLoopDetectedError);
    const told = effects.modelInputs
      .at(-1)!
      .messages.filter((m) => m.role === 'tool')
      .at(-1)!.content;
    expect(told).toMatch(/^Not handed off: it would be a loop \(a → b → a → b\)/);
    expect(memoEvents(effects).map((e) => e.refused)).toEqual([true, false]);
  });

  it('is off with loopWindow 0, and off in runs without controls', async () => {
    const answers = { a: [hop('b', 'x'), hop('b', 'x')], b: [hop('a', 'y'), hop('a', 'y')] };
    const agents = [agentSpec('a', { handoffs: ['b'] }), agentSpec('b', { handoffs: ['a'] })];
    expect(
      await runChain(controlled(agents, new FakeEffects(answers), { loopWindow: 0, maxHandoffs: 3 })).catch(
        (e: unknown) => e,
      ),
    ).toBeInstanceOf(MaxHandoffsExceededError);
    expect(
      await runChain(fakeRun(agents, new FakeEffects(answers), { maxHandoffs: 3 })).catch((e: unknown) => e),
    ).toBeInstanceOf(MaxHandoffsExceededError);
  });
});

describe('circuit breakers', () => {
  it('opens after breakerThreshold tool failures of a target and refuses handoffs to it until the cooldown has passed', async () => {
    const failing = () => ({ ok: false, content: 'Error: ledger down', failure: 'tool' as const });
    const effects = new FakeEffects(
      {
        triage: [
          hop('refunds', 'refund 1'),
          hop('refunds', 'refund 2'),
          'sorry, refunds is down',
          hop('refunds', 'refund 3'),
        ],
        refunds: [call('ledger'), call('ledger'), call('ledger'), hop('triage', 'could not'), 'refunded'],
      },
      { ledger: failing },
    );
    const agents = [
      agentSpec('triage', { handoffs: ['refunds'] }),
      agentSpec('refunds', { handoffs: ['triage'], toolNames: ['ledger'] }),
    ];
    const run = controlled(agents, effects, { breakerThreshold: 3, breakerCooldown: '1 minute', loopWindow: 0 });
    const outcome = await runChain(run);
    expect(outcome).toMatchObject({
      kind: 'completed',
      result: { output: 'sorry, refunds is down', finalAgent: 'triage' },
    });
    const refused = effects.modelInputs
      .at(-1)!
      .messages.filter((m) => m.role === 'tool')
      .at(-1)!.content;
    expect(refused).toMatch(
      /^Not handed off: refunds is unavailable after 3 failures \(its circuit breaker is open until 2026-01-01T00:01:00.000Z\)/,
    );
    expect(memoEvents(effects).map((e) => e.control)).toEqual([
      'target_failed',
      'target_failed',
      'target_failed',
      'breaker_opened',
      'breaker_refused',
    ]);
    expect(outcome.kind === 'completed' && outcome.result.controls).toMatchObject({
      target_failed: 3,
      breaker_opened: 1,
      breaker_refused: 1,
    });
  });

  it('lets one try through after the cooldown (half-open), and closes on its success', async () => {
    const effects = new FakeEffects(
      {
        a: [hop('b', 'task 1'), hop('b', 'task 2')],
        b: [call('flaky'), call('flaky'), hop('a', 'failed twice'), 'done'],
      },
      { flaky: () => ({ ok: false, content: 'Error: no', failure: 'tool' as const }) },
    );
    const agents = [agentSpec('a', { handoffs: ['b'] }), agentSpec('b', { handoffs: ['a'], toolNames: ['flaky'] })];
    const run = controlled(agents, effects, { breakerThreshold: 2, breakerCooldown: 1000, loopWindow: 0 });
    // Workflow time moves on by a minute with each model call here.
    const callModel = effects.callModel.bind(effects);
    effects.callModel = async (input) => ((effects.clock += 60_000), callModel(input));
    const outcome = await runChain(run);
    expect(outcome).toMatchObject({ kind: 'completed', result: { output: 'done', finalAgent: 'b' } });
    expect(memoEvents(effects).map((e) => e.control)).toEqual([
      'target_failed',
      'target_failed',
      'breaker_opened',
      'breaker_half_open',
      'breaker_closed',
    ]);
    expect(run.chain.state.controls!.breakers.b).toEqual({ state: 'closed', failures: 0 });
  });

  it('counts a failed specialist against it and refuses the next delegation to it', async () => {
    const delegate = (to: string) => ({
      calls: [{ name: 'delegate', args: { to, task: 'look it up', reason: 'you know' } }],
    });
    const effects = new FakeEffects({ lead: [delegate('finder'), delegate('finder'), 'gave up'] });
    effects.children.finder = { ok: false, reason: 'ModelCallFailedError: down' };
    const lead = agentSpec('lead', {
      delegates: ['finder'],
      delegateTool: { name: 'delegate', description: 'delegate', parameters: { type: 'object' } },
    });
    const outcome = await runChain(controlled([lead, agentSpec('finder')], effects, { breakerThreshold: 1 }));
    expect(outcome).toMatchObject({
      result: { output: 'gave up', controls: { target_failed: 1, breaker_opened: 1, breaker_refused: 1 } },
    });
    expect(effects.log.filter((l) => l.startsWith('delegate'))).toEqual(['delegate finder']);
  });
});
describe('guardrails', () => {
  const card = '4111 1111 1111 1111';

  it("feeds an output trip back to the agent with onTrip 'feedback', then accepts the corrected answer", async () => {
    const a = agentSpec('a', {
      guardrails: { output: [{ name: 'no-cards', kind: 'pii', types: ['credit_card'], onTrip: 'feedback' }] },
    });
    const effects = new FakeEffects({ a: [`your card ${card}`, 'your card ending 1111'] });
    const outcome = await runChain(controlled([a], effects));
    expect(outcome).toMatchObject({ result: { output: 'your card ending 1111', controls: { guardrail_tripped: 1 } } });
    expect(effects.modelInputs[1]!.messages.at(-1)!.content).toBe(
      'Your answer was not sent: guardrail "no-cards" tripped: it contains personal data (credit card). Answer again without that.',
    );
  });

  it('fails with GuardrailTrippedError on a trip with onTrip fail, and after maxGuardrailRetries', async () => {
    const a = agentSpec('a', { guardrails: { output: [{ name: 'short', kind: 'maxLength', max: 5 }] } });
    const err = await runChain(controlled([a], new FakeEffects({ a: ['far too long'] }))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GuardrailTrippedError);
    expect(err).toMatchObject({
      agent: 'a',
      guardrail: 'short',
      stage: 'output',
      reason: '12 characters, more than the 5 allowed',
    });
    const b = agentSpec('a', {
      guardrails: { output: [{ name: 'short', kind: 'maxLength', max: 5, onTrip: 'feedback' }] },
    });
    const again = await runChain(
      controlled([b], new FakeEffects({ a: ['too long 1', 'too long 2', 'too long 3'] }), { maxGuardrailRetries: 2 }),
    ).catch((e: unknown) => e);
    expect(again).toMatchObject({ name: 'GuardrailTrippedError', guardrail: 'short' });
  });

  it("checks the target's input guardrails on a handoff message: the source is told, and the target's are not the source's", async () => {
    const a = agentSpec('a', {
      handoffs: ['b'],
      guardrails: { output: [{ name: 'a-only', kind: 'pattern', pattern: 'forbidden' }] },
    });
    const b = agentSpec('b', {
      guardrails: { input: [{ name: 'no-emails', kind: 'pii', types: ['email'], onTrip: 'feedback' }] },
    });
    const effects = new FakeEffects({
      a: [hop('b', 'mail jo@example.com'), hop('b', 'the customer wrote in')],
      b: ['forbidden word is fine here'],
    });
    const outcome = await runChain(controlled([a, b], effects));
    expect(outcome).toMatchObject({ result: { output: 'forbidden word is fine here', finalAgent: 'b' } });
    const told = effects.modelInputs[1]!.messages.filter((m) => m.role === 'tool').at(-1)!.content;
    expect(told).toBe(
      'Not handed off: b does not accept this handoff: its guardrail "no-emails" tripped: it contains personal data (email). Change what you send, or answer yourself.',
    );
  });

  it('fails on the run input at once, and runs custom guardrails as activities', async () => {
    const a = agentSpec('a', { guardrails: { input: [{ name: 'topic', kind: 'custom' }] } });
    const effects = new FakeEffects({ a: ['never'] });
    effects.guardrails.topic = (text) =>
      text.includes('weather') ? { tripped: true, reason: 'off topic' } : { tripped: false };
    const err = await runChain(controlled([a], effects, {}, 'what is the weather')).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'GuardrailTrippedError', stage: 'input', reason: 'off topic' });
    expect(effects.log).toEqual(['checkGuardrail a topic', 'memo control', 'memo control']);
  });
});
