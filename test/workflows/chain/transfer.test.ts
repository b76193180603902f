import { describe, expect, it } from 'vitest';
import type { ChainState } from '../../../src/common/state';
import { resolveRunOptions } from '../../../src/common/options';
import { planTransfer, render, transferTo } from '../../../workflows/chain/transfer';
import { startChain } from '../../../workflows/chain/state';
import { agentSpec } from '../../helpers/fakeEffects';

const h = { kind: 'handoff' as const, from: 'a', to: 'b', message: 'take it' };

function chainWith(
  messages: ChainState['messages'],
  options: Parameters<typeof agentSpec>[1] = {},
): { state: ChainState; a: ReturnType<typeof agentSpec>; b: ReturnType<typeof agentSpec> } {
  const a = agentSpec('a', { handoffs: ['b'], ...options });
  const b = agentSpec('b');
  const team = { agents: { a, b }, approvals: [], hasHandoffListeners: false };
  return { state: { ...startChain(team, 'a', 'the request', resolveRunOptions()), messages }, a, b };
}

describe('render', () => {
  it('fills names and fields, objects as JSON, absent values as (none)', () => {
    expect(
      render('{{message}} / {{input.orderId}} / {{input}} / {{nothing}} / {{ state.context.x }}', {
        message: 'm',
        input: { orderId: 7 },
        state: { context: { x: 'y' } },
      }),
    ).toBe('m / 7 / {"orderId":7} / (none) / y');
  });
});

describe('planTransfer', () => {
  const conversation: ChainState['messages'] = [
    { role: 'system', content: 'You are a.' },
    { role: 'user', content: 'the request' },
    { role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'lookup', arguments: '{}' }] },
    { role: 'tool', toolCallId: 'c1', content: 'found' },
    { role: 'assistant', content: 'thinking', toolCalls: [{ id: 'c2', name: 'handoff', arguments: '{}' }] },
    { role: 'tool', toolCallId: 'c2', content: 'Handed off to b.' },
  ];

  it('keeps no tool answer whose call was cut by lastMessages', () => {
    const { state, a } = chainWith(conversation, {
      handoffOptions: { b: { context: 'full', filter: { lastMessages: 3 } } },
    });
    expect(planTransfer(state, a, h).carried.map((m) => m.role)).toEqual(['assistant', 'tool']);
  });

  it('drops tool calls but keeps what the assistant said', () => {
    const { state, a, b } = chainWith(conversation, {
      handoffOptions: { b: { context: 'full', filter: { dropToolCalls: true } } },
    });
    const record = transferTo(state, a, b, h, planTransfer(state, a, h));
    expect(record.messages).toEqual([
      { role: 'system', content: 'You are b.' },
      { role: 'user', content: 'the request' },
      { role: 'assistant', content: 'thinking' },
      { role: 'user', content: 'take it' },
    ]);
    expect(record).toMatchObject({
      context: 'full',
      input: 'message',
      filters: ['dropToolCalls'],
      transferSystemMessage: false,
    });
  });
});
