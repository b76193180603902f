import { ApplicationFailure } from '@temporalio/common';
import OpenAI, { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { ModelRequestError, toApplicationFailure } from '../common/errors';
import type { CallModelInput, ChatMessage, ModelResponse, OpenAIModelSpec, ToolSpec } from '../common/types';
import type { ModelCallContext, ModelProvider } from './provider';

/** Where the OpenAI provider finds its endpoint and key. */
export interface OpenAIProviderOptions {
  /** @default process.env.OPENAI_API_KEY */
  apiKey?: string;
  /** @default process.env.OPENAI_BASE_URL, then OpenAI's own */
  baseURL?: string;
}

/** HTTP statuses worth retrying: timeouts, conflicts, rate limits and server errors. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * Chat Completions with tools through the `openai` package. The client's own retries are off:
 * Temporal retries the activity, honouring `Retry-After`, so every attempt is in history.
 */
export class OpenAIProvider implements ModelProvider {
  readonly #clients = new Map<string, OpenAI>();

  constructor(private readonly options: OpenAIProviderOptions = {}) {}

  async call(input: CallModelInput, context: ModelCallContext): Promise<ModelResponse> {
    const spec = input.model as OpenAIModelSpec;
    const client = this.client(spec);
    try {
      const completion = await client.chat.completions.create(
        {
          model: spec.model,
          messages: input.messages.map(toOpenAIMessage),
          ...(input.tools.length > 0 ? { tools: input.tools.map(toOpenAITool) } : {}),
          ...(spec.settings?.temperature !== undefined ? { temperature: spec.settings.temperature } : {}),
          ...(spec.settings?.maxTokens !== undefined ? { max_tokens: spec.settings.maxTokens } : {}),
        },
        { signal: context.signal },
      );
      const message = completion.choices[0]?.message;
      if (!message) throw ApplicationFailure.retryable('the model answered with no choices', 'ModelEmptyResponse');
      const toolCalls = (message.tool_calls ?? []).flatMap((c) =>
        c.type === 'function' ? [{ id: c.id, name: c.function.name, arguments: c.function.arguments }] : [],
      );
      return {
        content: message.content ?? null,
        toolCalls,
        usage: {
          inputTokens: completion.usage?.prompt_tokens ?? 0,
          outputTokens: completion.usage?.completion_tokens ?? 0,
        },
        model: completion.model ?? spec.model,
      };
    } catch (err) {
      throw classify(err);
    }
  }

  private client(spec: OpenAIModelSpec): OpenAI {
    const baseURL = spec.settings?.baseURL ?? this.options.baseURL ?? process.env.OPENAI_BASE_URL;
    const apiKey = this.options.apiKey ?? process.env.OPENAI_API_KEY;
    if (!apiKey && !baseURL) {
      throw toApplicationFailure(
        new ModelRequestError('OPENAI_API_KEY is not set in the worker (set it, or OPENAI_BASE_URL for a local server)'),
      );
    }
    const timeout = spec.settings?.timeoutMs ?? 60_000;
    const key = `${baseURL ?? ''}|${apiKey ?? ''}|${timeout}`;
    let client = this.#clients.get(key);
    if (!client) {
      // Local OpenAI-compatible servers often need no key; the client insists on one.
      client = new OpenAI({ apiKey: apiKey ?? 'unused', baseURL, maxRetries: 0, timeout });
      this.#clients.set(key, client);
    }
    return client;
  }
}

/** Turn an error of the `openai` client into a retryable or non-retryable activity failure. */
export function classify(err: unknown): unknown {
  if (err instanceof ApplicationFailure) return err;
  if (err instanceof APIUserAbortError) return err;
  if (err instanceof APIConnectionError) {
    return ApplicationFailure.retryable(`model endpoint unreachable: ${err.message}`, 'ModelConnectionError');
  }
  if (err instanceof APIError && typeof err.status === 'number') {
    const text = `model endpoint answered ${err.status}: ${err.message}`;
    if (isRetryableStatus(err.status)) {
      return ApplicationFailure.create({
        message: text,
        type: 'ModelHttpError',
        details: [{ status: err.status }],
        nextRetryDelay: retryAfterMs(err.headers),
      });
    }
    return toApplicationFailure(new ModelRequestError(text, err.status));
  }
  return err;
}

/** Milliseconds the server asked us to wait (`retry-after-ms`, `retry-after` in seconds or as a date). */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  const ms = Number(headers?.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms > 0) return ms;
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function toOpenAIMessage(m: ChatMessage): ChatCompletionMessageParam {
  switch (m.role) {
    case 'assistant':
      return {
        role: 'assistant',
        content: m.content,
        ...(m.toolCalls && m.toolCalls.length > 0
          ? {
              tool_calls: m.toolCalls.map((c) => ({
                id: c.id,
                type: 'function' as const,
                function: { name: c.name, arguments: c.arguments },
              })),
            }
          : {}),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
    default:
      return { role: m.role, content: m.content };
  }
}

function toOpenAITool(t: ToolSpec): ChatCompletionTool {
  return { type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } };
}
