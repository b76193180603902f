/**
 * The AI SDK adapter at the edges, with the AI SDK's own MockLanguageModelV3: finish reasons, tool
 * calls whose arguments are not JSON, usage, the call and the prompt (its failures:
 * aiSdkProviderFailures.test.ts).
 */
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { aiSdk, defineAgent } from '../../src';
import { UserError } from '../../src/workflow';
import { toPrompt } from '../../src/models/aiSdk/prompt';
import { call, failure, stop, streaming, usage } from './aiSdkMock';

describe('finish reasons', () => {
  it('keeps the text of an answer cut by length, and a content filter that left no text is an empty answer', async () => {
    const cut = await call(
      streaming([
        { type: 'text-delta', id: '1', delta: 'half an ans' },
        { type: 'finish', finishReason: { unified: 'length', raw: 'length' }, usage: usage(5, 3) },
      ]),
    );
    expect(cut).toEqual({
      content: 'half an ans',
      toolCalls: [],
      usage: { inputTokens: 5, outputTokens: 3 },
      model: 'mock-model',
    });
    const filtered = await call(
      streaming([
        { type: 'finish', finishReason: { unified: 'content-filter', raw: 'content_filter' }, usage: usage(5, 0) },
      ]),
    );
    expect(filtered.content).toBeNull();
  });

  it('retries a stream that ends without finishing, and one that finishes with an error', async () => {
    const unfinished = await failure(call(streaming([{ type: 'text-delta', id: '1', delta: 'par' }])));
    expect([unfinished.type, unfinished.nonRetryable]).toEqual(['ModelStreamInterrupted', false]);
    const errored = await failure(
      call(
        streaming([{ type: 'finish', finishReason: { unified: 'error', raw: 'server_error' }, usage: usage(1, 1) }]),
      ),
    );
    expect([errored.type, errored.nonRetryable, errored.message]).toEqual([
      'ModelStreamInterrupted',
      false,
      expect.stringContaining('server_error'),
    ]);
  });
});

describe('tool calls', () => {
  it('keeps arguments as the model wrote them, JSON or not, gives each call an id of its own, and drops provider-executed calls', async () => {
    const r = await call(
      streaming([
        { type: 'tool-input-start', id: 'a', toolName: 'lookup' },
        { type: 'tool-input-delta', id: 'a', delta: '{"topic": "qu' },
        { type: 'tool-call', toolCallId: 'a', toolName: 'lookup', input: '{"topic": "qu' },
        { type: 'tool-call', toolCallId: 'a', toolName: 'handoff', input: '' },
        { type: 'tool-call', toolCallId: 'ws', toolName: 'web_search', input: '{}', providerExecuted: true },
        { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: usage(9, 4) },
      ]),
    );
    expect(r.toolCalls).toEqual([
      { id: 'a', name: 'lookup', arguments: '{"topic": "qu' },
      { id: 'a_1', name: 'handoff', arguments: '{}' },
    ]);
  });

  it("sends the agent's tools as function tools with tool choice auto", async () => {
    const model = streaming([{ type: 'finish', finishReason: stop, usage: usage(1, 1) }]);
    await call(model, {
      tools: [
        {
          name: 'lookup',
          description: 'Look up',
          parameters: { type: 'object', properties: { topic: { type: 'string' } } },
        },
      ],
    });
    expect(model.doStreamCalls[0]).toMatchObject({
      tools: [{ type: 'function', name: 'lookup', description: 'Look up', inputSchema: { type: 'object' } }],
      toolChoice: { type: 'auto' },
    });
  });
});

describe('usage', () => {
  it('counts cached input tokens, and estimates usage a provider does not report', async () => {
    const cached = await call(streaming([{ type: 'finish', finishReason: stop, usage: usage(100, 7, 60) }]));
    expect(cached.usage).toEqual({ inputTokens: 100, outputTokens: 7, cachedInputTokens: 60 });
    const unreported = await call(
      streaming([
        { type: 'text-delta', id: '1', delta: 'twelve chars' },
        { type: 'finish', finishReason: stop, usage: usage(undefined, undefined) },
      ]),
    );
    expect(unreported.usage.outputTokens).toBe(3);
    expect(unreported.usage.inputTokens).toBeGreaterThan(0);
  });
});

describe('the call', () => {
  it('answers through doGenerate when the model does not stream', async () => {
    const model = new MockLanguageModelV3({
      modelId: 'mock-model',
      doGenerate: async () => ({
        content: [
          { type: 'text', text: 'whole' },
          { type: 'tool-call', toolCallId: 't1', toolName: 'lookup', input: '{"topic":"x"}' },
        ],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage: usage(4, 2),
        response: { modelId: 'mock-model-2025' },
        warnings: [],
      }),
    });
    const r = await call(model, { model: aiSdk('m', { stream: false, temperature: 0, maxTokens: 64 }) });
    expect(r).toEqual({
      content: 'whole',
      toolCalls: [{ id: 't1', name: 'lookup', arguments: '{"topic":"x"}' }],
      usage: { inputTokens: 4, outputTokens: 2 },
      model: 'mock-model-2025',
    });
    expect(model.doGenerateCalls[0]).toMatchObject({ temperature: 0, maxOutputTokens: 64 });
  });

  it('asks for a structured answer as responseFormat without tools, and as an instruction beside tools', async () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } } };
    const plain = streaming([{ type: 'finish', finishReason: stop, usage: usage(1, 1) }]);
    await call(plain, { outputSchema: schema });
    expect(plain.doStreamCalls[0]!.responseFormat).toEqual({ type: 'json', schema, name: 'output' });
    const withTools = streaming([{ type: 'finish', finishReason: stop, usage: usage(1, 1) }]);
    await call(withTools, {
      outputSchema: schema,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hi' },
      ],
      tools: [{ name: 'handoff', description: 'h', parameters: {} }],
    });
    expect(withTools.doStreamCalls[0]!.responseFormat).toBeUndefined();
    expect(withTools.doStreamCalls[0]!.prompt[0]).toEqual({
      role: 'system',
      content: expect.stringMatching(/^Be brief\.\n\n.*JSON Schema/s),
    });
  });

  it('writes the conversation as an AI SDK prompt: tool answers name their tool and go together, earlier arguments parsed', () => {
    const prompt = toPrompt([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: null,
        toolCalls: [
          { id: 'c1', name: 'lookup', arguments: '{"topic":"a"}' },
          { id: 'c2', name: 'lookup', arguments: 'not json' },
        ],
      },
      { role: 'tool', toolCallId: 'c1', content: 'notes' },
      { role: 'tool', toolCallId: 'c2', content: 'arguments are not JSON' },
      { role: 'assistant', content: null },
      { role: 'assistant', content: 'done' },
    ]);
    expect(prompt).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: { topic: 'a' } },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'lookup', input: {} },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'c1', toolName: 'lookup', output: { type: 'text', value: 'notes' } },
          {
            type: 'tool-result',
            toolCallId: 'c2',
            toolName: 'lookup',
            output: { type: 'text', value: 'arguments are not JSON' },
          },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
    ]);
  });

  it('tells an agent given an AI SDK model object itself to wrap it', () => {
    const define = () => defineAgent({ id: 'a', instructions: 'x', model: streaming([]) as never });
    expect(define).toThrow(UserError);
    expect(define).toThrow(/AI SDK model object: wrap it as aiSdk\(model\)/);
  });

  it('keeps the model object out of the spec that history records', () => {
    const spec = aiSdk(streaming([]), { temperature: 0 });
    expect(JSON.parse(JSON.stringify(spec))).toEqual({
      provider: 'ai-sdk',
      model: 'mock-model',
      settings: { temperature: 0 },
    });
    expect(aiSdk(streaming([]), { name: 'house' }).model).toBe('house');
  });
});
