/**
 * The AI SDK adapter called as an activity calls it, on the AI SDK's own MockLanguageModelV3: a
 * stream of parts, usage as a provider reports it, and the failure a call must throw.
 */
import type { LanguageModelV3StreamPart, LanguageModelV3Usage } from '@ai-sdk/provider';
import { ApplicationFailure } from '@temporalio/common';
import { convertArrayToReadableStream, MockLanguageModelV3 } from 'ai/test';
import { expect } from 'vitest';
import { aiSdk, AiSdkProvider } from '../../src';
import type { CallModelInput } from '../../src/common/model';
import type { ModelCallContext } from '../../src/models/provider';

/** Usage as the AI SDK reports it: input and output tokens, and the cached input read. */
export const usage = (
  input: number | undefined,
  output: number | undefined,
  cacheRead?: number,
): LanguageModelV3Usage => ({
  inputTokens: { total: input, noCache: undefined, cacheRead, cacheWrite: undefined },
  outputTokens: { total: output, text: undefined, reasoning: undefined },
});
/** A finish reason of `stop`. */
export const stop = { unified: 'stop' as const, raw: 'stop' };

/** A model whose stream is `parts`. */
export function streaming(parts: LanguageModelV3StreamPart[]) {
  return new MockLanguageModelV3({
    modelId: 'mock-model',
    doStream: async () => ({ stream: convertArrayToReadableStream(parts) }),
  });
}

/** One call of `model` through AiSdkProvider, as `aiSdk('m')`, with `over` the call's input and `context` the activity's. */
export function call(
  model: MockLanguageModelV3,
  over: Partial<CallModelInput> = {},
  context: Partial<ModelCallContext> = {},
) {
  const input: CallModelInput = {
    agentId: 'solo',
    model: aiSdk('m'),
    messages: [{ role: 'user', content: 'hi' }],
    tools: [],
    callIndex: 0,
    ...over,
  };
  const ctx: ModelCallContext = {
    attempt: 1,
    signal: new AbortController().signal,
    sleep: async () => undefined,
    ...context,
  };
  return new AiSdkProvider({ models: { m: model } }).call(input, ctx);
}

/** The ApplicationFailure `promise` must fail with. */
export async function failure(promise: Promise<unknown>): Promise<ApplicationFailure> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApplicationFailure);
  return err as ApplicationFailure;
}
