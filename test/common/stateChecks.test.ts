/**
 * The checks of a carried state come from the types baton writes (`shapeOf<T>()`): every field a
 * chain or a conversation carries passes them, a drift between a type and its check does not
 * compile, and a state that still fails says baton wrote it rather than asking to leave a field out.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, handoff, InvalidRunInputError, Team } from '../../src';
import {
  resolveConversationOptions,
  resolveRunOptions,
  type ChainState,
  type ConversationState,
} from '../../src/workflow';
import { arrayOf, count, shapeOf, string } from '../../src/common/check';
import { validateConversationInput, validateRunInput } from '../../src/common/input';
import { conversationStateCheck } from '../../src/common/conversationStateChecks';
import { chainStateCheck } from '../../src/common/stateChecks';
import { reduce, startChain } from '../../workflows/chain/state';
import { scriptedAgent } from '../helpers/agents';

const payout = defineTool({
  name: 'payout',
  description: 'Pay',
  parameters: z.object({ amount: z.number() }),
  needsApproval: true,
  execute: () => 'paid',
});

function team() {
  return new Team(
    [
      scriptedAgent('desk', [{ text: 'x' }], {
        tools: [payout],
        handoffs: [handoff('refunds', { returnTo: 'caller' })],
        guardrails: { output: [] },
      }),
      scriptedAgent('refunds', [{ text: 'y' }], {
        returnTo: 'stay',
        description: 'Refunds',
        profile: { specialization: 'refunds', capabilities: ['refund'] },
      }),
    ],
    { name: 'support', version: 'v1', sharedState: true },
  ).spec();
}

const at = '2026-11-28T10:00:00.000Z';
const record = {
  handoffId: 'a1',
  outcome: 'approved' as const,
  approver: 'alice',
  requestedAt: at,
  decidedAt: at,
  via: 'update' as const,
  tool: 'payout',
};
const call = { id: 'c1', name: 'payout', arguments: '{"amount":5}' };

/** A chain state with every optional field set, the way the reducers, replays and migrations write them. */
function fullChainState(): ChainState {
  let s = startChain(
    team(),
    'desk',
    'pay bob',
    resolveRunOptions({ maxTurns: 4 }),
    { tenant: 'acme' },
    { startedAt: 1 },
  );
  s = reduce(s, {
    type: 'approval_requested',
    pending: {
      handoffId: 'a1',
      from: 'desk',
      to: 'tool:payout',
      message: 'payout({"amount":5})',
      requestedAt: at,
      onTimeout: 'reject',
      tool: { name: 'payout', arguments: call.arguments, toolCallId: 'c1', callHash: 'h' },
    },
  });
  s = reduce(s, { type: 'approval_decided', record });
  s = reduce(s, { type: 'routed', kind: 'refunds' });
  s = reduce(s, { type: 'answer_refused', guard: 'limits', message: 'answer again' });
  return {
    ...s,
    parent: {
      workflowId: 'top',
      rootWorkflowId: 'top',
      depth: 1,
      token: 't',
      team: { id: 'support@v1', hash: 'abc' },
      turn: 2,
      message: 'k',
    },
    pendingResponse: {
      content: null,
      toolCalls: [call],
      usage: { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0 },
      model: 'scripted',
      output: { error: 'not JSON' },
      handoffInputs: [null, { value: { orderId: '7' } }],
    },
    openTurn: {
      calls: [call],
      results: [['c1', 'paid']],
      handoffCallId: 'c2',
      handoff: {
        kind: 'handoff',
        from: 'desk',
        to: 'refunds',
        message: 'm',
        via: 'specialist',
        update: { context: { a: 1 } },
      },
      handoffId: 'h2',
    },
    replayOf: { workflowId: 'w', runId: 'r', from: 'carried state' },
    migrate: {
      from: 'support@v0',
      fallback: {
        agentId: 'desk',
        messages: [{ role: 'assistant', content: null, toolCalls: [call] }],
        answers: [{ toolCallId: 'c1', content: 'paid' }],
        handoffCallId: 'c2',
        to: 'refunds',
      },
    },
    decidedCalls: { c1: { callHash: 'h', record } },
    controls: {
      ...s.controls!,
      finalTurn: {
        budget: 'cost',
        limit: 1000,
        used: 1200.5,
        currency: 'USD',
        needed: 300,
        scope: 'conversation',
        agent: 'desk',
      },
      guardrailFeedback: { 'desk/output/x': 1 },
    },
    economics: {
      edge: '→desk',
      usageByEdge: {},
      usageByDelegation: {},
      conversation: { spentMicros: 5, limitMicros: 10 },
    },
  };
}

describe('checks of carried states', () => {
  it('pass every field a chain carries: tool approvals, routing, checked answers, a migration, hand-backs', () => {
    const state = JSON.parse(JSON.stringify(fullChainState())) as ChainState;
    expect(Object.keys(state.approvals.toolCalls ?? {})).toEqual(['a1']);
    expect(chainStateCheck(state, 'resume')).toEqual([]);
    expect(validateRunInput({ agent: 'desk', input: 'pay bob', resume: state })).toMatchObject({
      resume: { routingCounts: { refunds: 1 } },
    });
  });

  it('pass every field a conversation carries, a turn waiting for a worker of its team among them', () => {
    const chain = fullChainState();
    const turn = {
      turn: 2,
      message: 'pay bob',
      idempotencyKey: 'k',
      startedAt: at,
      before: { agentId: 'desk', messages: chain.messages },
      merged: ['k+1'],
      stranded: {
        version: 'support@v1',
        worker: 'support@v2',
        step: 'tool "payout" of agent "desk"',
        missing: ['tool "payout"'],
        since: at,
      },
    };
    const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2, modelCalls: 1, toolCalls: 0 };
    const state: ConversationState = {
      chain,
      conversation: resolveConversationOptions({}),
      turns: 2,
      current: turn,
      queued: [{ turn: 3, message: 'and?', idempotencyKey: 'k3' }],
      replies: [
        {
          idempotencyKey: 'k1',
          reply: {
            turn: 1,
            output: 'hi',
            agent: 'desk',
            handoffs: [],
            usage,
            idempotencyKey: 'k1',
            handedBackTo: 'desk',
          },
        },
        { idempotencyKey: 'k0', failure: { type: 'X', message: 'y', details: {} } },
      ],
      usage,
      handoffs: 0,
      compactions: 0,
      lastActiveAt: at,
      continuedRuns: 1,
      teamDeployment: 'support.v1',
      refreshTeam: true,
    };
    expect(conversationStateCheck(JSON.parse(JSON.stringify(state)), 'resume')).toEqual([]);
  });

  it('say that baton wrote a state they refuse, and which field is not understood, never to leave it out', () => {
    const state = { ...fullChainState(), approvals: { pending: [], decided: [], toolCalls: {}, laterField: 1 } };
    const refused = (() => {
      try {
        validateRunInput({ agent: 'desk', input: 'pay bob', resume: state });
      } catch (err) {
        return err;
      }
    })();
    expect(refused).toBeInstanceOf(InvalidRunInputError);
    const [problem] = (refused as InvalidRunInputError).problems;
    expect(problem).toContain('the chain state baton wrote in "resume" when the chain continued');
    expect(problem).toContain(
      'is not understood by this worker\'s baton: "resume.approvals" has unknown field(s) "laterField"',
    );
    expect(problem).toContain('`baton replay <workflowId>` continues the chain');
    expect(problem).not.toMatch(/leave (it|them) out/);
    expect(() => validateConversationInput({ agent: 'desk', resume: { chain: state } })).toThrow(
      /the conversation state baton wrote in "resume".*"resume.chain.approvals" has unknown field\(s\) "laterField"/,
    );
  });

  it('are built from the type they check: a field without its check, a check without its field, an optional field not listed, or a check narrower than its field do not compile', () => {
    interface Carried {
      name: string;
      count: number;
      tags?: string[];
      kind?: 'a' | 'b';
    }
    const check = shapeOf<Carried>()({ name: string, count, tags: arrayOf(string, 'tags'), kind: string }, [
      'tags',
      'kind',
    ]);
    expect(check({ name: 'x', count: 1, kind: 'a' }, 'v')).toEqual([]);
    expect(check({ name: 'x', count: 1, later: true }, 'v')).toEqual([
      '"v" has unknown field(s) "later" (valid: name, count, tags, kind)',
    ]);
    // @ts-expect-error `count` has no check
    shapeOf<Carried>()({ name: string, tags: arrayOf(string, 'tags'), kind: string }, ['tags', 'kind']);
    // @ts-expect-error `extra` is no field of Carried
    shapeOf<Carried>()({ name: string, count, tags: arrayOf(string, 'tags'), kind: string, extra: string }, [
      'tags',
      'kind',
    ]);
    // @ts-expect-error `kind` is optional and not listed
    shapeOf<Carried>()({ name: string, count, tags: arrayOf(string, 'tags'), kind: string }, ['tags']);
    // @ts-expect-error `name` is not optional
    shapeOf<Carried>()({ name: string, count, tags: arrayOf(string, 'tags'), kind: string }, ['tags', 'kind', 'name']);
    // @ts-expect-error a number check for a string field
    shapeOf<Carried>()({ name: count, count, tags: arrayOf(string, 'tags'), kind: string }, ['tags', 'kind']);
  });
});
