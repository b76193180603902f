/**
 * An AI SDK model's answer as baton keeps it: text, tool calls with their arguments as the model
 * wrote them (baton checks them when it runs the tool, and tells the model what was wrong), usage
 * (estimated when the provider reports none) and the model that answered.
 */
import type {
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import { ApplicationFailure } from '@temporalio/common';
import type { ModelResponse, ToolCall } from '../../common/model';
import { normalizeToolCalls } from '../openaiMessages';
import { estimateTokens } from '../provider';

/** The parts of one answer, streamed or whole, put together. */
export class AnswerAssembly {
  /** Stream parts received. */
  parts = 0;
  finishReason: LanguageModelV3FinishReason | undefined;
  usage: LanguageModelV3Usage | undefined;
  modelId: string | undefined;
  text = '';
  readonly calls: ToolCall[] = [];

  /**
   * Take one stream part; the text of a `text-delta` goes to `onText`. An `error` part is the
   * provider's failure, thrown as it is for the caller to judge.
   */
  add(part: LanguageModelV3StreamPart, onText?: (piece: string) => void): void {
    this.parts += 1;
    switch (part.type) {
      case 'text-delta':
        this.text += part.delta;
        if (part.delta !== '') onText?.(part.delta);
        break;
      case 'tool-call':
        this.#call(part);
        break;
      case 'response-metadata':
        if (part.modelId) this.modelId = part.modelId;
        break;
      case 'finish':
        this.finishReason = part.finishReason;
        this.usage = part.usage;
        break;
      case 'error':
        throw part.error;
    }
  }

  /** Take a whole answer (`doGenerate`). */
  addContent(content: LanguageModelV3Content[]): void {
    for (const c of content) {
      if (c.type === 'text') this.text += c.text;
      else if (c.type === 'tool-call') this.#call(c);
    }
  }

  /** The answer; a stream that ended without a finish part, or finished with an error, was cut short and is retried. */
  response(options: LanguageModelV3CallOptions, fallbackModel: string): ModelResponse {
    if (!this.finishReason)
      throw ApplicationFailure.retryable(
        `the model's stream ended after ${this.parts} part(s) without finishing`,
        'ModelStreamInterrupted',
      );
    if (this.finishReason.unified === 'error') {
      throw ApplicationFailure.retryable(
        `the model finished its answer with an error (finish reason ${this.finishReason.raw ?? 'error'})`,
        'ModelStreamInterrupted',
      );
    }
    const toolCalls = normalizeToolCalls(this.calls);
    const content = this.text === '' ? null : this.text;
    return {
      content,
      toolCalls,
      usage: usageOf(this.usage) ?? estimated(options, content, toolCalls),
      model: this.modelId || fallbackModel,
    };
  }

  #call(c: { toolCallId: string; toolName: string; input: string; providerExecuted?: boolean }): void {
    // A tool the provider ran itself (a hosted tool) is not one of the agent's: nothing for baton to run.
    if (c.providerExecuted) return;
    this.calls.push({ id: c.toolCallId, name: c.toolName, arguments: c.input });
  }
}

/** A provider's usage report as baton counts it, or `undefined` when it reported no token counts. */
export function usageOf(u: LanguageModelV3Usage | undefined): ModelResponse['usage'] | undefined {
  if (!u) return undefined;
  const cached = u.inputTokens.cacheRead ?? 0;
  const input =
    u.inputTokens.total ?? (u.inputTokens.noCache === undefined ? undefined : u.inputTokens.noCache + cached);
  const output =
    u.outputTokens.total ??
    (u.outputTokens.text === undefined ? undefined : u.outputTokens.text + (u.outputTokens.reasoning ?? 0));
  if (input === undefined && output === undefined) return undefined;
  return { inputTokens: input ?? 0, outputTokens: output ?? 0, ...(cached > 0 ? { cachedInputTokens: cached } : {}) };
}

function estimated(
  options: LanguageModelV3CallOptions,
  content: string | null,
  toolCalls: ToolCall[],
): ModelResponse['usage'] {
  const sent = JSON.stringify(options.prompt) + (options.tools ? JSON.stringify(options.tools) : '');
  const received = (content ?? '') + toolCalls.map((c) => c.name + c.arguments).join('');
  return { inputTokens: estimateTokens(sent), outputTokens: estimateTokens(received) };
}
