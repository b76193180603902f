/**
 * fast-check arbitraries for the property-based runs: a scenario is one to three chains started
 * together on {@link fuzzTeam}, each with a generated scripted behaviour per agent (handoffs to
 * valid, invalid and own ids, handoffs with bad arguments, several handoffs in one turn, tool
 * calls with good and bad arguments, crashing tools, refunds that need approval, long and empty
 * messages), generated run options (limits, loop detection, breakers, budgets, approval rules)
 * and the decisions a person sends (approve, reject, let it time out, a refused decision first,
 * a second decision), each after a random delay.
 */
import fc from 'fast-check';
import type { RunOptions } from '../../src';
import { HANDOFF_TOOL_NAME } from '../../src/agents';
import type { ApprovalRule, ScriptedModelSpec, ScriptedStep } from '../../src/workflow';
import { TRANSFER_TOOL_PREFIX } from '../../src/common/handoff';
import { FUZZ_AGENTS, FUZZ_TARGETS, FUZZ_TOOLS, PER_TARGET_AGENTS, type FuzzAgent } from './fuzzTeam';

/** What a person does with one waiting approval. */
export interface FuzzDecision {
  /** `timeout`: nobody decides (a waiting approval without a timeout is approved instead, or it would wait forever). */
  action: 'approve' | 'reject' | 'timeout' | 'refused_first' | 'twice';
  via: 'signal' | 'update';
  delayMs: number;
}

/** One chain of a scenario. */
export interface FuzzChain {
  start: FuzzAgent;
  input: string;
  models: Record<FuzzAgent, ScriptedModelSpec>;
  options: RunOptions;
  /** Taken in turn for each approval the chain waits on. */
  decisions: FuzzDecision[];
}

/** One property run: chains started at once. */
export interface FuzzScenario {
  chains: FuzzChain[];
}

const INVALID_IDS = ['nobody', '', 'A', 'a ', 'handoff'];

/** Short, empty, unicode and long texts (up to ~60,000 characters). */
export const fuzzText: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 1, arbitrary: fc.constant('') },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 60 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }), fc.integer({ min: 200, max: 5000 }))
      .map(([s, n]) => s.repeat(n)),
  },
);

type Call = NonNullable<ScriptedStep['toolCalls']>[number];

function handoffCall(agent: FuzzAgent, to: string, message: string): Call {
  return PER_TARGET_AGENTS.includes(agent)
    ? { name: `${TRANSFER_TOOL_PREFIX}${to}`, arguments: { message } }
    : { name: HANDOFF_TOOL_NAME, arguments: { to, message } };
}

/** A tool call `agent`'s model may make: handoffs, good and bad tool calls. */
function callOf(agent: FuzzAgent): fc.Arbitrary<Call> {
  const valid = fc.constantFrom(...FUZZ_TARGETS[agent]);
  const tools = FUZZ_TOOLS[agent];
  return fc.oneof(
    { weight: 9, arbitrary: fc.tuple(valid, fuzzText).map(([to, m]) => handoffCall(agent, to, m)) },
    {
      weight: 2,
      arbitrary: fc.tuple(fc.constantFrom(agent, ...INVALID_IDS), fuzzText).map(([to, m]) => handoffCall(agent, to, m)),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Call>(
        { name: HANDOFF_TOOL_NAME, arguments: {} },
        { name: HANDOFF_TOOL_NAME, arguments: { to: 3, message: 'x' } },
        { name: HANDOFF_TOOL_NAME, arguments: { to: 'b', message: 5 } },
        { name: HANDOFF_TOOL_NAME, arguments: { message: 'no target' } },
        { name: `${TRANSFER_TOOL_PREFIX}a`, arguments: { note: 'no message' } },
      ),
    },
    { weight: 3, arbitrary: fc.nat(1000).map((id): Call => ({ name: 'lookup', arguments: { id } })) },
    {
      weight: 2,
      arbitrary: fc.constantFrom<Call>(
        { name: 'lookup', arguments: { id: 'seven' } },
        { name: 'lookup', arguments: {} },
        { name: 'lookup', arguments: { id: 1.5 } },
      ),
    },
    ...(tools.includes('refuse')
      ? [{ weight: 1, arbitrary: fuzzText.map((reason): Call => ({ name: 'refuse', arguments: { reason } })) }]
      : []),
    ...(tools.includes('explode')
      ? [{ weight: 1, arbitrary: fc.constant<Call>({ name: 'explode', arguments: {} }) }]
      : []),
    ...(tools.includes('refund')
      ? [
          {
            weight: 2,
            arbitrary: fc.constantFrom(20, 250).map((amount): Call => ({ name: 'refund', arguments: { amount } })),
          },
        ]
      : []),
    { weight: 1, arbitrary: fc.constant<Call>({ name: 'nope', arguments: {} }) },
  );
}

function stepOf(agent: FuzzAgent): fc.Arbitrary<ScriptedStep> {
  return fc.oneof(
    { weight: 1, arbitrary: fuzzText.map((text): ScriptedStep => ({ text })) },
    // Several calls in one turn: several handoffs, a handoff beside other tools, or tools alone.
    {
      weight: 5,
      arbitrary: fc.record(
        {
          text: fc.option(fuzzText, { nil: undefined }),
          toolCalls: fc.array(callOf(agent), { minLength: 1, maxLength: 3 }),
        },
        { requiredKeys: ['toolCalls'] },
      ),
    },
  );
}

/** What `agent` answers once its steps are used up: an answer, an empty one, or a call forever. */
function fallbackOf(agent: FuzzAgent): fc.Arbitrary<ScriptedStep> {
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant<ScriptedStep>({ text: `answer from ${agent}` }) },
    { weight: 1, arbitrary: fc.constant<ScriptedStep>({ text: '' }) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(...FUZZ_TARGETS[agent])
        .map((to): ScriptedStep => ({ toolCalls: [handoffCall(agent, to, `over to ${to}`)] })),
    },
    { weight: 1, arbitrary: fc.constant<ScriptedStep>({ toolCalls: [{ name: 'lookup', arguments: { id: 4 } }] }) },
  );
}

function modelOf(agent: FuzzAgent): fc.Arbitrary<ScriptedModelSpec> {
  return fc
    .record({ steps: fc.array(stepOf(agent), { maxLength: 6 }), fallback: fallbackOf(agent) })
    .map(({ steps, fallback }) => ({
      provider: 'scripted' as const,
      model: 'fuzz',
      steps,
      rules: [{ whenIncludes: '', reply: fallback }],
      requireAllSteps: false,
    }));
}

const approvalRule: fc.Arbitrary<ApprovalRule> = fc.record(
  {
    to: fc.constantFrom(...FUZZ_AGENTS),
    from: fc.constantFrom(...FUZZ_AGENTS),
    timeout: fc.constantFrom('1 second', '2 seconds'),
    onTimeout: fc.constantFrom('reject', 'approve', 'fail'),
    approvers: fc.constant(['alice']),
  },
  { requiredKeys: ['to'] },
);

/** Run options: every limit and control the chain's behaviour can run into. */
export const fuzzOptions: fc.Arbitrary<RunOptions> = fc
  .record(
    {
      maxHandoffs: fc.integer({ min: 0, max: 6 }),
      maxTurns: fc.integer({ min: 1, max: 6 }),
      onInvalidHandoff: fc.constantFrom('fail', 'retry'),
      maxInvalidHandoffRetries: fc.integer({ min: 0, max: 2 }),
      onEmptyOutput: fc.constantFrom('retry', 'accept'),
      loopWindow: fc.integer({ min: 0, max: 3 }),
      onLoop: fc.constantFrom('fail', 'refuse'),
      maxLoopRefusals: fc.integer({ min: 0, max: 2 }),
      breakerThreshold: fc.integer({ min: 0, max: 3 }),
      breakerCooldown: fc.constantFrom('1 second', '1 minute'),
      onBudgetExceeded: fc.constantFrom('fail', 'final_answer'),
      maxAgents: fc.integer({ min: 0, max: 3 }),
      maxTokens: fc.constantFrom(0, 0, 50, 5000),
      approvals: fc.array(approvalRule, { maxLength: 2 }),
    },
    { requiredKeys: [] },
  )
  .map(
    (o): RunOptions =>
      ({ ...o, retry: { initialInterval: '100 ms', maximumInterval: '100 ms', maximumAttempts: 2 } }) as RunOptions,
  );

const decision: fc.Arbitrary<FuzzDecision> = fc.record({
  action: fc.constantFrom('approve', 'reject', 'timeout', 'refused_first', 'twice'),
  via: fc.constantFrom('signal', 'update'),
  delayMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 1500 })),
});

/** One chain: where it starts, its models, options and decisions. */
export const fuzzChain: fc.Arbitrary<FuzzChain> = fc.record({
  start: fc.constantFrom(...FUZZ_AGENTS),
  input: fuzzText.map((t) => (t.trim() ? t : 'hello')),
  models: fc.record({ a: modelOf('a'), b: modelOf('b'), c: modelOf('c') }),
  options: fuzzOptions,
  decisions: fc.array(decision, { minLength: 1, maxLength: 4 }),
});

/** A scenario of one to three chains at once. */
export const fuzzScenario: fc.Arbitrary<FuzzScenario> = fc.record({
  chains: fc.array(fuzzChain, { minLength: 1, maxLength: 3 }),
});
