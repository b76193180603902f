/**
 * A model provider for Anthropic's Messages API, written against baton's `ModelProvider`
 * interface with plain `fetch`: an example of adding a provider by name.
 *
 *   createWorker({ team, providers: { anthropic: new AnthropicProvider() } })
 *   defineAgent({ id: 'triage', model: model('anthropic', 'claude-sonnet-4-5', { maxTokens: 1024 }), … })
 *
 * The key comes from `ANTHROPIC_API_KEY` in the worker and never enters history.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { ModelProvider } from 'baton-agents';
import {
  ModelRequestError,
  toApplicationFailure,
  type CallModelInput,
  type ChatMessage,
  type ModelResponse,
} from 'baton-agents/workflow';
import type { ModelCallContext } from 'baton-agents/models';

interface Block {
  type: 'text' | 'tool_use' | 'tool_result';
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: string;
}

interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: string | Block[];
}

export class AnthropicProvider implements ModelProvider {
  constructor(private readonly options: { apiKey?: string; baseURL?: string } = {}) {}

  async call(input: CallModelInput, context: ModelCallContext): Promise<ModelResponse> {
    const settings = (input.model as { settings?: { maxTokens?: number; baseURL?: string } }).settings ?? {};
    const baseURL =
      settings.baseURL ?? this.options.baseURL ?? process.env.ANTHROPIC_BASE_URL ?? 'https://api.anthropic.com';
    const response = await fetch(`${baseURL}/v1/messages`, {
      method: 'POST',
      signal: context.signal,
      headers: {
        'content-type': 'application/json',
        'anthropic-version': '2023-06-01',
        'x-api-key': this.options.apiKey ?? process.env.ANTHROPIC_API_KEY ?? '',
      },
      body: JSON.stringify({
        model: input.model.model,
        max_tokens: settings.maxTokens ?? 1024,
        system: input.messages
          .filter((m) => m.role === 'system')
          .map((m) => m.content)
          .join('\n\n'),
        messages: toAnthropic(input.messages),
        ...(input.tools.length > 0
          ? {
              tools: input.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters })),
            }
          : {}),
      }),
    }).catch((err: Error) => {
      throw ApplicationFailure.retryable(`Anthropic unreachable: ${err.message}`, 'ModelConnectionError');
    });
    const body = (await response.json().catch(() => ({}))) as {
      content?: Block[];
      usage?: { input_tokens?: number; output_tokens?: number };
      model?: string;
      error?: { message?: string };
    };
    if (!response.ok) {
      const text = `Anthropic answered ${response.status}: ${body.error?.message ?? response.statusText}`;
      // Overloaded, rate-limited and server errors are worth another attempt; the rest are not.
      if (response.status === 429 || response.status >= 500) throw ApplicationFailure.retryable(text, 'ModelHttpError');
      throw toApplicationFailure(new ModelRequestError(text, response.status));
    }
    const blocks = body.content ?? [];
    const text = blocks
      .filter((b) => b.type === 'text')
      .map((b) => b.text ?? '')
      .join('');
    return {
      content: text === '' ? null : text,
      toolCalls: blocks
        .filter((b) => b.type === 'tool_use')
        .map((b) => ({ id: b.id ?? '', name: b.name ?? '', arguments: JSON.stringify(b.input ?? {}) })),
      usage: { inputTokens: body.usage?.input_tokens ?? 0, outputTokens: body.usage?.output_tokens ?? 0 },
      model: body.model ?? input.model.model,
    };
  }
}

/** The conversation in Anthropic's shape: tool answers are user turns of `tool_result` blocks. */
function toAnthropic(messages: ChatMessage[]): AnthropicMessage[] {
  const out: AnthropicMessage[] = [];
  for (const m of messages) {
    if (m.role === 'system') continue;
    if (m.role === 'user') out.push({ role: 'user', content: m.content });
    else if (m.role === 'assistant') {
      const blocks: Block[] = m.content ? [{ type: 'text', text: m.content }] : [];
      for (const c of m.toolCalls ?? [])
        blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: JSON.parse(c.arguments || '{}') });
      out.push({ role: 'assistant', content: blocks });
    } else {
      const result: Block = { type: 'tool_result', tool_use_id: m.toolCallId, content: m.content };
      const last = out.at(-1);
      // Consecutive tool answers belong in one user turn.
      if (last?.role === 'user' && Array.isArray(last.content) && last.content.every((b) => b.type === 'tool_result'))
        last.content.push(result);
      else out.push({ role: 'user', content: [result] });
    }
  }
  return out;
}
