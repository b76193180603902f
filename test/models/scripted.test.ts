import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { scripted, ScriptedProvider } from '../../src';
import type { CallModelInput, ScriptedStep, ScriptedToolCall } from '../../src/workflow';

const provider = new ScriptedProvider();
const context = (attempt = 1) => ({ attempt, signal: new AbortController().signal, sleep: async () => {} });
const input = (model: ReturnType<typeof scripted>, callIndex: number, last = 'hello'): CallModelInput => ({
  agentId: 'a',
  model,
  callIndex,
  tools: [],
  messages: [
    { role: 'system', content: 'sys' },
    { role: 'user', content: last },
  ],
});

describe('scripted provider', () => {
  it('takes tool calls of a named shape: a name and the arguments as an object', () => {
    // Checked by the type checker (npm run typecheck): the reference shows the shape, not object[].
    expectTypeOf<NonNullable<ScriptedStep['toolCalls']>[number]>().toEqualTypeOf<ScriptedToolCall>();
    expectTypeOf<ScriptedToolCall>().toEqualTypeOf<{ name: string; arguments: Record<string, unknown> }>();
  });

  it('answers the n-th call with the n-th step, with deterministic tool call ids', async () => {
    const model = scripted([
      { text: 'one' },
      { toolCalls: [{ name: 'x', arguments: { a: 1 } }], handoff: { to: 'b', message: 'm' } },
    ]);
    expect((await provider.call(input(model, 0), context())).content).toBe('one');
    const second = await provider.call(input(model, 1), context());
    expect(second.toolCalls).toEqual([
      { id: 'call_a_2_1', name: 'x', arguments: '{"a":1}' },
      { id: 'call_a_2_2', name: 'handoff', arguments: '{"to":"b","message":"m"}' },
    ]);
  });

  it('falls back to the first rule matching the latest input, case-insensitively', async () => {
    const model = scripted({
      rules: [
        { whenIncludes: 'REFUND', reply: { text: 'refunds' } },
        { whenIncludes: '', reply: { text: 'other' } },
      ],
    });
    expect((await provider.call(input(model, 0, 'I want a refund'), context())).content).toBe('refunds');
    expect((await provider.call(input(model, 5, 'hello'), context())).content).toBe('other');
  });

  it('fails the first attempts retryably when asked to', async () => {
    const model = scripted([{ text: 'ok', failAttempts: 2 }]);
    const failure = await provider.call(input(model, 0), context(2)).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect((failure as ApplicationFailure).nonRetryable).toBe(false);
    expect((await provider.call(input(model, 0), context(3))).content).toBe('ok');
  });

  it('fails non-retryably with UnexpectedModelCallError when nothing answers', async () => {
    const failure = (await provider
      .call(input(scripted([]), 0), context())
      .catch((e: unknown) => e)) as ApplicationFailure;
    expect(failure.type).toBe('UnexpectedModelCallError');
    expect(failure.nonRetryable).toBe(true);
  });
});
