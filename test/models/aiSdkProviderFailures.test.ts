/**
 * The AI SDK adapter's failures, with the AI SDK's own MockLanguageModelV3: HTTP errors and their
 * retry classes, a missing key, an error part in the stream, an unknown model, cancellation and a
 * silent model.
 */
import { APICallError, LoadAPIKeyError, type LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { aiSdk, AiSdkProvider } from '../../src';
import { UserError } from '../../src/workflow';
import { call, failure, streaming } from './aiSdkMock';

describe('errors', () => {
  const apiError = (statusCode: number | undefined, headers?: Record<string, string>, body?: string) =>
    new APICallError({
      message: 'boom',
      url: 'http://127.0.0.1:1/v1/chat/completions',
      requestBodyValues: {},
      statusCode,
      responseHeaders: headers,
      responseBody: body,
      isRetryable: true,
    });
  const failing = (err: unknown) => new MockLanguageModelV3({ doStream: async () => Promise.reject(err) });

  it('retries 429 (with the delay Retry-After asks), 5xx and unreachable endpoints; fails 4xx, and 5xx that blame the request, at once', async () => {
    const limited = await failure(call(failing(apiError(429, { 'retry-after': '3' }))));
    expect([limited.type, limited.nonRetryable, limited.nextRetryDelay]).toEqual(['ModelHttpError', false, 3000]);
    expect((await failure(call(failing(apiError(502))))).nonRetryable).toBe(false);
    expect((await failure(call(failing(apiError(undefined))))).type).toBe('ModelConnectionError');
    const bad = await failure(call(failing(apiError(400))));
    expect([bad.type, bad.nonRetryable]).toEqual(['ModelRequestError', true]);
    const blamed = await failure(call(failing(apiError(500, {}, '{"detail": "1 validation error: field required"}'))));
    expect([blamed.type, blamed.nonRetryable]).toEqual(['ModelRequestError', true]);
  });

  it('fails a missing key at once, and an error part in the stream as the error it carries', async () => {
    const noKey = await failure(call(failing(new LoadAPIKeyError({ message: 'ANTHROPIC_API_KEY is missing' }))));
    expect([noKey.type, noKey.nonRetryable, noKey.message]).toEqual([
      'ModelRequestError',
      true,
      expect.stringContaining('ANTHROPIC_API_KEY'),
    ]);
    const inStream = await failure(
      call(
        streaming([
          { type: 'text-delta', id: '1', delta: 'x' },
          { type: 'error', error: apiError(503) },
        ]),
      ),
    );
    expect([inStream.type, inStream.nonRetryable]).toEqual(['ModelHttpError', false]);
  });

  it('names the models it has when a spec names another, and refuses what is not a LanguageModelV3', async () => {
    const unknown = await failure(
      new AiSdkProvider({ models: { m: streaming([]) } }).call(
        { agentId: 'a', model: aiSdk('other'), messages: [], tools: [], callIndex: 0 },
        { attempt: 1, signal: new AbortController().signal, sleep: async () => undefined },
      ),
    );
    expect([unknown.type, unknown.nonRetryable, unknown.message]).toEqual([
      'ModelRequestError',
      true,
      expect.stringMatching(/no AI SDK model named "other" \(it has m\)/),
    ]);
    expect(
      () => new AiSdkProvider({ models: { old: { specificationVersion: 'v2', doStream: () => undefined } as never } }),
    ).toThrow(UserError);
    expect(() => new AiSdkProvider({ models: { s: 'openai/gpt-4o' as never } })).toThrow(
      /must be a LanguageModelV3 object/,
    );
  });
});

describe('cancellation and silence', () => {
  it("aborts the model's request when the activity is cancelled, and throws the cancellation", async () => {
    const controller = new AbortController();
    let seen: AbortSignal | undefined;
    const model = new MockLanguageModelV3({
      doStream: async ({ abortSignal }) => {
        seen = abortSignal;
        return {
          stream: new ReadableStream<LanguageModelV3StreamPart>({
            start: (c) => c.enqueue({ type: 'text-delta', id: '1', delta: 'so' }),
          }),
        };
      },
    });
    const pieces: string[] = [];
    const pending = call(model, {}, { signal: controller.signal, text: (p) => pieces.push(p) });
    await expect.poll(() => pieces).toEqual(['so']);
    const reason = new Error('cancelled');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(seen?.aborted).toBe(true);
  });

  it('gives up on a model silent for timeoutMs with a retryable failure', async () => {
    const silent = new MockLanguageModelV3({
      doStream: async () => ({ stream: new ReadableStream<LanguageModelV3StreamPart>() }),
    });
    const f = await failure(call(silent, { model: aiSdk('m', { timeoutMs: 100 }) }));
    expect([f.type, f.nonRetryable]).toEqual(['ModelTimeout', false]);
  });
});
