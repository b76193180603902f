import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/common/model';
import { normalizeToolCalls, toOpenAIMessage } from '../../src/models/openaiMessages';
import { ChunkAssembly } from '../../src/models/openaiStream';

type Delta = ChatCompletionChunk.Choice.Delta;
type ToolCallDelta = ChatCompletionChunk.Choice.Delta.ToolCall;

function chunk(delta: Delta, finish: ChatCompletionChunk.Choice['finish_reason'] = null): ChatCompletionChunk {
  return {
    id: 'c',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'm',
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
}

function assemble(chunks: ChatCompletionChunk[]): ChunkAssembly {
  const a = new ChunkAssembly();
  chunks.forEach((c) => a.add(c));
  return a;
}

describe('assembling a streamed answer', () => {
  it('joins text deltas and reads usage from the final chunk', () => {
    const a = assemble([
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: 'Hel' }),
      chunk({ content: 'lo' }),
      chunk({}, 'stop'),
      {
        id: 'c',
        object: 'chat.completion.chunk',
        created: 0,
        model: 'm',
        choices: [],
        usage: { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 },
      },
    ]);
    expect(a.content).toBe('Hello');
    expect(a.toolCalls).toEqual([]);
    expect(a.finishReason).toBe('stop');
    expect(a.usage).toEqual({ inputTokens: 7, outputTokens: 2 });
    expect(a.chunks).toBe(5);
  });

  it('merges tool-call deltas by index, interleaved', () => {
    const a = assemble([
      chunk({ tool_calls: [{ index: 0, id: 'a', type: 'function', function: { name: 'lookup', arguments: '' } }] }),
      chunk({
        tool_calls: [{ index: 1, id: 'b', type: 'function', function: { name: 'handoff', arguments: '{"to":' } }],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"topic":"q"}' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: '"writer"}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    expect(a.content).toBeNull();
    expect(a.toolCalls).toEqual([
      { id: 'a', name: 'lookup', arguments: '{"topic":"q"}' },
      { id: 'b', name: 'handoff', arguments: '{"to":"writer"}' },
    ]);
  });

  it('reads deltas without an index (older Ollama) and names repeated in every delta', () => {
    const a = assemble([
      chunk({
        tool_calls: [
          { id: 'x', type: 'function', function: { name: 'handoff', arguments: '{"to":"a"}' } } as ToolCallDelta,
        ],
      }),
      chunk({
        tool_calls: [{ id: 'y', type: 'function', function: { name: 'lookup', arguments: '{' } } as ToolCallDelta],
      }),
      chunk({ tool_calls: [{ id: 'y', function: { name: 'lookup', arguments: '"topic":"q"' } } as ToolCallDelta] }),
      chunk({ tool_calls: [{ function: { name: 'lookup', arguments: '}' } } as ToolCallDelta] }),
      chunk({}, 'tool_calls'),
    ]);
    expect(a.toolCalls).toEqual([
      { id: 'x', name: 'handoff', arguments: '{"to":"a"}' },
      { id: 'y', name: 'lookup', arguments: '{"topic":"q"}' },
    ]);
  });

  it('says when nothing arrived and when no finish reason came', () => {
    expect(assemble([]).received).toBe(false);
    const cut = assemble([chunk({ content: 'par' })]);
    expect(cut.received).toBe(true);
    expect(cut.finishReason).toBeUndefined();
  });
});

describe('the conversation as sent', () => {
  it('never sends null content', () => {
    const messages: ChatMessage[] = [
      { role: 'assistant', content: null, toolCalls: [{ id: 'a', name: 'lookup', arguments: '' }] },
      { role: 'assistant', content: null },
      { role: 'assistant', content: 'thinking', toolCalls: [{ id: 'b', name: 'lookup', arguments: '{}' }] },
    ];
    expect(messages.map(toOpenAIMessage)).toEqual([
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'a', type: 'function', function: { name: 'lookup', arguments: '{}' } }],
      },
      { role: 'assistant', content: '' },
      {
        role: 'assistant',
        content: 'thinking',
        tool_calls: [{ id: 'b', type: 'function', function: { name: 'lookup', arguments: '{}' } }],
      },
    ]);
  });

  it('gives every tool call of an answer an id of its own and JSON arguments', () => {
    const calls = normalizeToolCalls([
      { id: '', name: 'a', arguments: '' },
      { id: 'same', name: 'b', arguments: '{"x":1}' },
      { id: 'same', name: 'c', arguments: ' ' },
      { id: '', name: 'd', arguments: '{}' },
    ]);
    expect(new Set(calls.map((c) => c.id)).size).toBe(4);
    expect(calls.every((c) => c.id !== '')).toBe(true);
    expect(calls.map((c) => c.arguments)).toEqual(['{}', '{"x":1}', '{}', '{}']);
    expect(calls[1]!.id).toBe('same');
  });
});
