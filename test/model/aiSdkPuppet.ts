/**
 * The puppet model behind baton's AI SDK adapter (the `ai_sdk` lane): an `AiSdkProvider` calls a
 * puppet `LanguageModelV3`, which asks the harness as ./puppet.ts does and answers in AI SDK stream
 * parts (text deltas, tool calls with their arguments as JSON text, a finish with usage). So the
 * adapter's prompt, streaming, tool-call mapping, usage and cancellation run under every operation
 * the harness generates, and the answers stay the harness's.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { LanguageModelV3, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import type { CallModelInput } from '../../src/workflow';
import { aiSdk, AiSdkProvider } from '../../src/models/aiSdk';
import type { ModelCallContext, ModelProvider } from '../../src/models/provider';
import type { FromWorker } from './protocol';
import { askHarness, failIfTold, inPieces, puppetUsage, summary } from './puppet';

/** The puppet provider of a worker process, its answers given through the AI SDK adapter. */
export function aiSdkPuppetProvider(send: (m: FromWorker) => void): ModelProvider {
  // The model gets the AI SDK call; the harness keys a call by baton's own input, which travels beside it.
  const current = new AsyncLocalStorage<{ input: CallModelInput; context: ModelCallContext }>();
  const model: LanguageModelV3 = {
    specificationVersion: 'v3',
    provider: 'puppet',
    modelId: 'puppet',
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error('the puppet model only streams')),
    async doStream(options) {
      const { input, context } = current.getStore()!;
      const { key, attempt, answer } = await askHarness(send, input, context, options.abortSignal ?? context.signal);
      failIfTold(send, key, attempt, answer);
      const text = answer.text ?? '';
      const calls = answer.toolCalls ?? [];
      const parts: LanguageModelV3StreamPart[] = [
        ...inPieces(text).map((delta) => ({ type: 'text-delta' as const, id: 'text', delta })),
        ...calls.map((c) => ({
          type: 'tool-call' as const,
          toolCallId: c.id,
          toolName: c.name,
          input: JSON.stringify(c.arguments),
        })),
      ];
      const usage = puppetUsage(input, text);
      let next = 0;
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        async pull(controller) {
          const part = parts[next++];
          if (part) {
            if (part.type === 'text-delta') await context.sleep(15);
            return controller.enqueue(part);
          }
          send({ type: 'call_ended', key, attempt, how: 'answered' });
          controller.enqueue({
            type: 'finish',
            finishReason: { unified: calls.length > 0 ? 'tool-calls' : 'stop', raw: undefined },
            usage: {
              inputTokens: {
                total: usage.inputTokens,
                noCache: undefined,
                cacheRead: undefined,
                cacheWrite: undefined,
              },
              outputTokens: { total: usage.outputTokens, text: undefined, reasoning: undefined },
            },
          });
          controller.close();
        },
      });
      return { stream };
    },
  };
  const adapter = new AiSdkProvider({ models: { puppet: model } });
  return {
    call(input, context) {
      if (input.purpose) return Promise.resolve(summary(input));
      return current.run({ input, context }, () => adapter.call({ ...input, model: aiSdk('puppet') }, context));
    },
  };
}
