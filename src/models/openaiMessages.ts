/**
 * baton's conversation in the Chat Completions shape, written for the strictest servers: no `null`
 * content (llama-cpp-python answers 500 on it), every tool call with an id of its own and JSON
 * arguments; and a completion's answer read back as baton keeps it.
 */
import { ApplicationFailure } from '@temporalio/common';
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { CallModelInput, ChatMessage, ModelResponse, OpenAIModelSpec, ToolCall, ToolSpec } from '../common/model';
import { estimateTokens } from './provider';

/** The request of one model call, without the streaming fields. */
export function chatRequest(spec: OpenAIModelSpec, input: CallModelInput): ChatCompletionCreateParamsNonStreaming {
  const settings = spec.settings ?? {};
  return {
    model: spec.model,
    messages: input.messages.map(toOpenAIMessage),
    // Without `tool_choice`, llama-cpp-python leaves the tools out of the prompt: no agent could hand off.
    ...(input.tools.length > 0 ? { tools: input.tools.map(toOpenAITool), tool_choice: 'auto' as const } : {}),
    ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
    ...(settings.maxTokens !== undefined ? { max_tokens: settings.maxTokens } : {}),
  };
}

/** One message in the Chat Completions shape. */
export function toOpenAIMessage(m: ChatMessage): ChatCompletionMessageParam {
  switch (m.role) {
    case 'assistant': {
      const calls = m.toolCalls ?? [];
      if (calls.length === 0) return { role: 'assistant', content: m.content ?? '' };
      return {
        role: 'assistant',
        // An empty string, not null and not left out: chat templates read the field.
        content: m.content ?? '',
        tool_calls: calls.map((c) => ({
          id: c.id,
          type: 'function' as const,
          function: { name: c.name, arguments: jsonObjectText(c.arguments) },
        })),
      };
    }
    case 'tool':
      return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
    case 'system':
      return { role: 'system', content: m.content };
    case 'user':
      return { role: 'user', content: m.content };
  }
}

/**
 * Arguments as servers accept them back: vLLM parses earlier calls' arguments and refuses (400) a
 * conversation whose arguments are not a JSON object, so those go back as `{}` (the call's answer
 * already told the model what was wrong with them).
 */
function jsonObjectText(args: string): string {
  try {
    const parsed: unknown = JSON.parse(args);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? args : '{}';
  } catch {
    return '{}';
  }
}

/** A tool as a Chat Completions function tool. */
export function toOpenAITool(t: ToolSpec): ChatCompletionTool {
  return { type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } };
}

/**
 * Tool calls as the conversation needs them: an id that no other call of the answer has (servers
 * send empty or repeated ids, and each tool answer must name its call) and arguments that are JSON text.
 */
export function normalizeToolCalls(calls: ToolCall[]): ToolCall[] {
  const seen = new Set<string>();
  return calls.map((c, i) => {
    let id = c.id || 'call';
    if (!c.id || seen.has(id)) id = `${id}_${i}`;
    while (seen.has(id)) id = `${id}_`;
    seen.add(id);
    return { id, name: c.name, arguments: c.arguments.trim() === '' ? '{}' : c.arguments };
  });
}

/** The answer in a whole (not streamed) completion. */
export function fromCompletion(
  params: ChatCompletionCreateParamsNonStreaming,
  completion: ChatCompletion,
): ModelResponse {
  const message = completion.choices?.[0]?.message;
  if (!message) throw ApplicationFailure.retryable('the model answered with no choices', 'ModelEmptyResponse');
  // A refusal is the model's answer: the chain ends with it instead of nudging an "empty" answer.
  const content = message.content || message.refusal || (message.content ?? null);
  const toolCalls = (message.tool_calls ?? []).flatMap((c) =>
    c.type === 'function' ? [{ id: c.id, name: c.function.name, arguments: c.function.arguments }] : [],
  );
  const usage = completion.usage ? usageOf(completion.usage) : undefined;
  return response(params, content, toolCalls, usage, completion.model);
}

/** A server's usage report: tokens in and out, and of those in, the ones its prompt cache served (`prompt_tokens_details.cached_tokens`). */
export function usageOf(u: {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
}): ModelResponse['usage'] {
  const cached = u.prompt_tokens_details?.cached_tokens;
  return {
    inputTokens: u.prompt_tokens ?? 0,
    outputTokens: u.completion_tokens ?? 0,
    ...(typeof cached === 'number' && cached > 0 ? { cachedInputTokens: cached } : {}),
  };
}

/** The model's answer as baton keeps it: tool calls normalized, usage estimated when the server reports none. */
export function response(
  params: ChatCompletionCreateParamsNonStreaming,
  content: string | null,
  calls: ToolCall[],
  usage: ModelResponse['usage'] | undefined,
  model: string | undefined,
): ModelResponse {
  const toolCalls = normalizeToolCalls(calls);
  return {
    content,
    toolCalls,
    usage: usage ?? estimatedUsage(params, content, toolCalls),
    model: model || params.model,
  };
}

/** Usage for servers that report none, from the lengths of what was sent and received. */
function estimatedUsage(
  params: ChatCompletionCreateParamsNonStreaming,
  content: string | null,
  toolCalls: ToolCall[],
): ModelResponse['usage'] {
  const sent = JSON.stringify(params.messages) + (params.tools ? JSON.stringify(params.tools) : '');
  const received = (content ?? '') + toolCalls.map((c) => c.name + c.arguments).join('');
  return { inputTokens: estimateTokens(sent), outputTokens: estimateTokens(received) };
}
