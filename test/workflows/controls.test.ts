import { describe, expect, it } from 'vitest';
import { BudgetExceededError, MaxHandoffsExceededError, MaxTurnsExceededError } from '../../src/common/budgetErrors';
import { GuardrailTrippedError } from '../../src/common/errors';
import { HandoffLoopDetectedError } from '../../src/common/modelBehaviorErrors';
import type { RunOptions } from '../../src/common/options';
import type { AgentSpec } from '../../src/common/team';
import { runChain } from '../../workflows/loop';
import { agentSpec, FakeEffects, fakeRun } from '../helpers/fakeEffects';

const hop = (to: string, message = `over to ${to}`) => ({ calls: [{ name: 'handoff', args: { to, message } }] });
const call = (name: string, args: Record<string, unknown> = {}) => ({ calls: [{ name, args }] });

function controlled(agents: AgentSpec[], effects: FakeEffects, options: RunOptions = {}, input = 'go') {
  return fakeRun(agents, effects, options, agents[0]!.id, input, { controls: true });
}

const memoEvents = (effects: FakeEffects) =>
  effects.memos
    .map((m) => m.batonApprovalEvent as Record<string, unknown> | undefined)
    .filter((e): e is Record<string, unknown> => e?.type === 'control');

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !check(); i++) await new Promise((r) => setTimeout(r, 0));
  expect(check()).toBe(true);
}

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

describe('tool approvals', () => {
  const refunds = (extra: Partial<AgentSpec> = {}) =>
    agentSpec('refunds', {
      tools: [
        {
          name: 'issueRefund',
          description: 'refund',
          parameters: {
            type: 'object',
            properties: { orderId: { type: 'string' }, amount: { type: 'number', maximum: 500 } },
            required: ['orderId', 'amount'],
            additionalProperties: false,
          },
        },
      ],
      toolApprovals: { issueRefund: { when: [{ arg: 'amount', op: '>', value: 100 }], timeout: '1 hour' } },
      ...extra,
    });
  const refund = (amount: number) => call('issueRefund', { orderId: 'A1', amount });

  it('runs small refunds at once and makes large ones wait; an approval with edited arguments runs those', async () => {
    const ran: unknown[] = [];
    const effects = new FakeEffects(
      { refunds: [refund(50), refund(250), 'done'] },
      { issueRefund: (args) => (ran.push(args), `refunded ${String(args.amount)}`) },
    );
    const run = controlled([refunds()], effects);
    const done = runChain(run);
    await until(() => run.chain.state.approvals.pending.length === 1);
    const waiting = run.chain.state.approvals.pending[0]!;
    expect(waiting).toMatchObject({
      from: 'refunds',
      to: 'tool:issueRefund',
      message: 'issueRefund({"orderId":"A1","amount":250})',
      tool: { name: 'issueRefund', arguments: '{"orderId":"A1","amount":250}' },
    });
    run.desk.receive(
      { handoffId: waiting.handoffId, approver: 'finance', arguments: { orderId: 'A1', amount: 900 } },
      'approve',
    );
    run.desk.receive(
      {
        handoffId: waiting.handoffId,
        approver: 'finance',
        arguments: { orderId: 'A1', amount: 200 },
        callHash: waiting.tool!.callHash,
      },
      'approve',
    );
    const outcome = await done;
    expect(ran).toEqual([
      { orderId: 'A1', amount: 50 },
      { orderId: 'A1', amount: 200 },
    ]);
    const refusedEdit = effects.memos
      .map((m) => m.batonApprovalEvent as { type: string; reason?: string })
      .find((e) => e?.type === 'decision_refused');
    expect(refusedEdit?.reason).toBe(
      'the edited arguments do not match the parameters of issueRefund: $.amount must be <= 500, got 900',
    );
    expect(effects.modelInputs[2]!.messages.at(-1)!.content).toBe(
      '(finance approved this call with changed arguments: {"orderId":"A1","amount":200})\nrefunded 200',
    );
    expect(outcome).toMatchObject({ result: { controls: { tool_approvals_requested: 1, tool_calls_approved: 1 } } });
    expect(run.chain.state.approvals.decided[0]).toMatchObject({
      tool: 'issueRefund',
      editedArguments: '{"orderId":"A1","amount":200}',
      approver: 'finance',
    });
  });

  it('tells the model a rejection with its reason, and refuses a stale decision for another call', async () => {
    const effects = new FakeEffects(
      { refunds: [refund(300), 'ok, no refund'] },
      { issueRefund: () => 'should not run' },
    );
    const run = controlled([refunds()], effects);
    const done = runChain(run);
    await until(() => run.chain.state.approvals.pending.length === 1);
    const waiting = run.chain.state.approvals.pending[0]!;
    run.desk.receive({ handoffId: waiting.handoffId, approver: 'finance', callHash: '00000000' }, 'approve');
    run.desk.receive({ handoffId: waiting.handoffId, approver: 'finance', reason: 'over the policy' }, 'reject');
    await done;
    expect(effects.log).not.toContain('runTool refunds issueRefund');
    const refused = effects.memos
      .map((m) => m.batonApprovalEvent as { type: string; reason?: string })
      .find((e) => e?.type === 'decision_refused');
    expect(refused?.reason).toMatch(
      /^stale decision: it is for call 00000000, but .* waits for issueRefund\(\{"orderId":"A1","amount":300\}\)/,
    );
    expect(effects.modelInputs[1]!.messages.at(-1)!.content).toBe(
      'Not run: finance rejected this call to issueRefund: over the policy. Do not make the same call again; tell the user, or find another way.',
    );
  });

  it('answers a timed-out approval by its onTimeout', async () => {
    const effects = new FakeEffects({ refunds: [refund(300), 'nobody answered'] }, { issueRefund: () => 'no' });
    const run = controlled([refunds()], effects);
    const done = runChain(run);
    await until(() => effects.log.includes('timer 3600000'));
    effects.fireTimer();
    await done;
    expect(effects.modelInputs[1]!.messages.at(-1)!.content).toBe(
      'Not run: nobody approved this call to issueRefund in time (1 hour).',
    );
    expect(run.chain.state.controls!.counters).toMatchObject({ tool_approvals_timed_out: 1 });
  });
});
