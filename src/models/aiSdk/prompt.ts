/**
 * baton's conversation as an AI SDK call: messages as a `LanguageModelV3Prompt`, tools as function
 * tools, the model's settings and an agent's structured answer as the call's options.
 */
import type {
  JSONSchema7,
  LanguageModelV3CallOptions,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  SharedV3ProviderOptions,
} from '@ai-sdk/provider';
import type { CallModelInput, ChatMessage, JsonSchema } from '../../common/model';
import { outputInstruction } from '../openaiOutput';
import type { AiSdkModelSettings } from './spec';

/** The options of one call, without its abort signal. */
export function callOptions(input: CallModelInput, settings: AiSdkModelSettings = {}): LanguageModelV3CallOptions {
  const tools = input.tools.map((t) => ({
    type: 'function' as const,
    name: t.name,
    description: t.description,
    inputSchema: t.parameters as JSONSchema7,
  }));
  const format = input.outputSchema
    ? formatOf(input.outputSchema, settings.responseFormat ?? 'auto', tools.length > 0)
    : undefined;
  const messages = format?.instruction ? withInstruction(input.messages, format.instruction) : input.messages;
  return {
    prompt: toPrompt(messages),
    ...(tools.length > 0 ? { tools, toolChoice: { type: 'auto' as const } } : {}),
    ...(format?.responseFormat ? { responseFormat: format.responseFormat } : {}),
    ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
    ...(settings.maxTokens !== undefined ? { maxOutputTokens: settings.maxTokens } : {}),
    ...(settings.providerOptions ? { providerOptions: settings.providerOptions as SharedV3ProviderOptions } : {}),
  };
}

function formatOf(schema: JsonSchema, mode: 'auto' | 'always' | 'never', tools: boolean) {
  if (mode === 'always' || (mode === 'auto' && !tools))
    return { responseFormat: { type: 'json' as const, schema: schema as JSONSchema7, name: 'output' } };
  return { instruction: outputInstruction(schema) };
}

function withInstruction(messages: ChatMessage[], instruction: string): ChatMessage[] {
  const [first, ...rest] = messages;
  if (first?.role === 'system') return [{ role: 'system', content: `${first.content}\n\n${instruction}` }, ...rest];
  return [{ role: 'system', content: instruction }, ...messages];
}

/**
 * The conversation as an AI SDK prompt. A tool answer names its call's tool (the AI SDK's tool
 * results carry it); answers in a row go in one tool message, as Anthropic wants them; an earlier
 * call's arguments go back parsed (`{}` when they were not a JSON object: the call's answer already
 * told the model so); an assistant turn with neither text nor calls is left out, since providers
 * refuse empty content.
 */
export function toPrompt(messages: ChatMessage[]): LanguageModelV3Prompt {
  const toolNames = new Map<string, string>();
  const prompt: LanguageModelV3Message[] = [];
  for (const m of messages) {
    if (m.role === 'system') prompt.push({ role: 'system', content: m.content });
    else if (m.role === 'user') prompt.push({ role: 'user', content: [{ type: 'text', text: m.content }] });
    else if (m.role === 'assistant') {
      const calls = m.toolCalls ?? [];
      for (const c of calls) toolNames.set(c.id, c.name);
      const content = [
        ...(m.content ? [{ type: 'text' as const, text: m.content }] : []),
        ...calls.map((c) => ({
          type: 'tool-call' as const,
          toolCallId: c.id,
          toolName: c.name,
          input: jsonObject(c.arguments),
        })),
      ];
      if (content.length > 0) prompt.push({ role: 'assistant', content });
    } else {
      const result = {
        type: 'tool-result' as const,
        toolCallId: m.toolCallId,
        toolName: toolNames.get(m.toolCallId) ?? 'unknown',
        output: { type: 'text' as const, value: m.content },
      };
      const last = prompt.at(-1);
      if (last?.role === 'tool') last.content.push(result);
      else prompt.push({ role: 'tool', content: [result] });
    }
  }
  return prompt;
}

function jsonObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}
