import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openai } from '../../src';
import type { OpenAIModelSettings } from '../../src/common/model';
import { DEFAULT_LOCAL_MAX_TOKENS, OpenAIProvider } from '../../src/models/openai';
import { defaultMaxTokens } from '../../src/models/openaiEndpoint';
import { estimateTokens } from '../../src/models/provider';
import { reply, startOpenAIServer } from '../helpers/openaiServer';
import { waitFor } from '../helpers/wait';
import { callContext, failure, providerInput } from './openaiProvider.fixtures';

let fake: Awaited<ReturnType<typeof startOpenAIServer>>;
beforeAll(async () => {
  fake = await startOpenAIServer();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
  fake.replies.length = 0;
});

/** A call of agent `solo` to the fake server's model, with the `lookup` tool or none. */
const input = (settings: OpenAIModelSettings = {}, withTools = false) => providerInput(fake.url, settings, withTools);

describe('streaming', () => {
  it('streams by default, asks for usage in the stream and heartbeats per chunk', async () => {
    fake.replies.push(reply.text('Hello there, streamed.'));
    const c = callContext();
    const response = await new OpenAIProvider().call(input(), c.context);
    expect(response).toEqual({
      content: 'Hello there, streamed.',
      toolCalls: [],
      usage: { inputTokens: 20, outputTokens: 10 },
      model: 'gpt-fake',
    });
    expect(fake.requests[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    const chunks = c.heartbeats.map((h) => h.chunks).filter((n) => n !== undefined);
    // One per chunk: the role, six pieces of text, the finish reason and the usage.
    expect(chunks).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(new Set(c.heartbeats.map((h) => h.request)).size).toBe(1);
  });

  it('does not stream when the model or the worker says so', async () => {
    fake.replies.push(reply.text('one'), reply.text('two'));
    await new OpenAIProvider().call(input({ stream: false }), callContext().context);
    await new OpenAIProvider({ stream: false }).call(input(), callContext().context);
    expect(fake.requests.map((r) => [r.body.stream, r.body.stream_options])).toEqual([
      [undefined, undefined],
      [undefined, undefined],
    ]);
  });

  it('estimates usage that the stream leaves out', async () => {
    fake.replies.push(reply.text('a reply without usage', { omitUsage: true }));
    const response = await new OpenAIProvider().call(input(), callContext().context);
    expect(response.usage.outputTokens).toBe(estimateTokens('a reply without usage'));
    expect(response.usage.inputTokens).toBeGreaterThan(estimateTokens('Answer briefly.hi'));
  });

  it('asks again without stream_options when a server refuses them, and remembers', async () => {
    fake.replies.push(
      reply.error(400, 'Unrecognized request argument supplied: stream_options'),
      reply.text('first'),
      reply.text('second'),
    );
    const provider = new OpenAIProvider();
    expect((await provider.call(input(), callContext().context)).content).toBe('first');
    expect((await provider.call(input(), callContext().context)).content).toBe('second');
    expect(fake.requests.map((r) => [r.body.stream, r.body.stream_options !== undefined])).toEqual([
      [true, true],
      [true, false],
      [true, false],
    ]);
  });

  it('asks again as a stream when a stream is cut before its first chunk, and the endpoint goes on streaming', async () => {
    fake.replies.push(reply.text('lost', { cutAfterChunks: 0 }), reply.text('whole'), reply.text('later'));
    const provider = new OpenAIProvider();
    const first = callContext();
    const err = await failure(provider.call(input(), first.context));
    expect([err.type, err.nonRetryable]).toEqual(['ModelStreamInterrupted', false]);
    expect((await provider.call(input(), callContext(first.last()).context)).content).toBe('whole');
    expect((await provider.call(input(), callContext().context)).content).toBe('later');
    expect(fake.requests.map((r) => r.body.stream)).toEqual([true, true, true]);
  });

  it('asks without streaming, in the same attempt, when a stream ends in good order with nothing in it', async () => {
    const empty = await startOpenAIServer({ streamsToolCalls: false });
    try {
      empty.replies.push(reply.toolCalls([{ name: 'lookup', arguments: { topic: 'q' } }]));
      const response = await new OpenAIProvider().call(
        { ...input({}, true), model: openai('gpt-fake', { baseURL: empty.url }) },
        callContext().context,
      );
      expect(response.toolCalls.map((c) => c.name)).toEqual(['lookup']);
      expect(empty.requests.map((r) => r.body.stream)).toEqual([true, undefined]);
    } finally {
      await empty.close();
    }
  });

  it('uses the whole answer of a server that ignores stream: true, instead of asking for it again', async () => {
    const ignoring = await startOpenAIServer({ ignoresStream: true });
    try {
      ignoring.replies.push(reply.text('a whole answer'), reply.text('another'));
      const provider = new OpenAIProvider();
      const asked = { ...input(), model: openai('gpt-fake', { baseURL: ignoring.url }) };
      expect(await provider.call(asked, callContext().context)).toEqual({
        content: 'a whole answer',
        toolCalls: [],
        usage: { inputTokens: 20, outputTokens: 10 },
        model: 'gpt-fake',
      });
      expect((await provider.call(asked, callContext().context)).content).toBe('another');
      expect(ignoring.requests.map((r) => r.body.stream)).toEqual([true, true]);
    } finally {
      await ignoring.close();
    }
  });

  it('asks again as a stream after a stream cut off mid-way; after two cuts in a row, once without streaming', async () => {
    fake.replies.push(
      reply.text('a long answer that breaks', { cutAfterChunks: 3 }),
      reply.text('breaks again', { cutAfterChunks: 2 }),
      reply.text('whole'),
    );
    const provider = new OpenAIProvider();
    const first = callContext();
    const err = await failure(provider.call(input(), first.context));
    expect(err.type).toBe('ModelStreamInterrupted');
    expect(err.nonRetryable).toBe(false);
    expect(first.last()).toMatchObject({ failure: 'stream-interrupted', count: 1 });
    const second = callContext(first.last());
    await failure(provider.call(input(), second.context));
    expect(second.last()).toMatchObject({ failure: 'stream-interrupted', count: 2 });
    expect((await provider.call(input(), callContext(second.last()).context)).content).toBe('whole');
    expect(fake.requests.map((r) => r.body.stream)).toEqual([true, true, undefined]);
  });

  it('fails a stream that sends nothing for timeoutMs as retryable', async () => {
    fake.replies.push(reply.text('slow', { chunkDelayMs: 1_500 }));
    const started = Date.now();
    const err = await failure(new OpenAIProvider().call(input({ timeoutMs: 300 }), callContext().context));
    expect(err.type).toBe('ModelStreamStalled');
    expect(err.nonRetryable).toBe(false);
    expect(Date.now() - started).toBeLessThan(1_400);
  });

  it('stops at once when the call is cancelled mid-stream', async () => {
    fake.replies.push(reply.text('x'.repeat(200), { chunkDelayMs: 200 }));
    const c = callContext();
    const reason = new Error('cancelled by the test');
    const call = new OpenAIProvider().call(input(), c.context);
    while (!c.heartbeats.some((h) => (h.chunks ?? 0) >= 2)) await new Promise((r) => setTimeout(r, 20));
    const abortedAt = Date.now();
    c.controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    expect(Date.now() - abortedAt).toBeLessThan(150);
  });
});

describe('slow and unreachable servers', () => {
  it('says a server that accepts connections but does not answer in time is slow, aborts the request, pauses, and gives up on the second timeout in a row', async () => {
    fake.replies.push(reply.text('too late', { delayMs: 3_000 }), reply.text('too late again', { delayMs: 3_000 }));
    const provider = new OpenAIProvider({ stream: false });
    const first = callContext();
    const err = await failure(provider.call(input({ timeoutMs: 400 }), first.context));
    expect([err.type, err.nonRetryable, err.nextRetryDelay]).toEqual(['ModelTimeout', false, 400]);
    expect(err.message).toBe(`model endpoint slow: ${fake.url} accepts connections but sent no answer within 400 ms`);
    expect(first.last()).toMatchObject({ failure: 'timed-out', count: 1 });
    await waitFor(
      async () => fake.requests[0]?.closedEarly,
      (closed) => closed === true,
      2_000,
    );
    const again = await failure(provider.call(input({ timeoutMs: 400 }), callContext(first.last()).context));
    expect([again.type, again.nonRetryable]).toEqual(['ModelTimeout', true]);
    expect(again.message).toMatch(
      /timed out 2 times in a row, so it is not sent again \(raise the model's settings.timeoutMs/,
    );
  });

  it('counts a stream that stops sending as slow too', async () => {
    fake.replies.push(reply.text('stops', { stallAfterChunks: 2 }), reply.text('stops again', { stallAfterChunks: 1 }));
    const provider = new OpenAIProvider();
    const first = callContext();
    const err = await failure(provider.call(input({ timeoutMs: 300 }), first.context));
    expect([err.type, err.nonRetryable]).toEqual(['ModelStreamStalled', false]);
    expect(err.message).toMatch(/^model endpoint slow: the model's stream sent nothing for 300 ms after 2 chunk/);
    const again = await failure(provider.call(input({ timeoutMs: 300 }), callContext(first.last()).context));
    expect([again.type, again.nonRetryable]).toEqual(['ModelStreamStalled', true]);
  });

  it('says an endpoint where nothing listens is unreachable, naming it and why', async () => {
    const closed = await startOpenAIServer();
    const url = closed.url;
    await closed.close();
    const err = await failure(
      new OpenAIProvider().call({ ...input(), model: openai('gpt-fake', { baseURL: url }) }, callContext().context),
    );
    expect([err.type, err.nonRetryable]).toEqual(['ModelConnectionError', false]);
    expect(err.message).toMatch(
      new RegExp(`^model endpoint unreachable at ${url.replace(/[.]/g, '\\.')}: connect ECONNREFUSED`),
    );
  });

  it('asks servers other than OpenAI for at most 2048 tokens unless told otherwise', async () => {
    fake.replies.push(reply.text('a'), reply.text('b'), reply.text('c'));
    await new OpenAIProvider().call(input(), callContext().context);
    await new OpenAIProvider().call(input({ maxTokens: 300 }), callContext().context);
    await new OpenAIProvider({ maxTokens: false }).call(input(), callContext().context);
    expect(fake.requests.map((r) => (r.body as { max_tokens?: number }).max_tokens)).toEqual([
      DEFAULT_LOCAL_MAX_TOKENS,
      300,
      undefined,
    ]);
    expect(defaultMaxTokens('https://api.openai.com/v1', undefined)).toBeUndefined();
    expect(defaultMaxTokens('https://api.openai.com/v1', 512)).toBe(512);
  });
});

describe('a 500 that repeats', () => {
  const named = () => reply.error(500, "KeyError: 'tool_call_id'");

  it('is retried once, then fails when the same request gets the same answer', async () => {
    fake.replies.push(named(), named());
    const provider = new OpenAIProvider();
    const first = callContext();
    const err1 = await failure(provider.call(input(), first.context));
    expect([err1.type, err1.nonRetryable]).toEqual(['ModelHttpError', false]);
    expect(first.last()?.failure).toMatch(/^500:/);
    const err2 = await failure(provider.call(input(), callContext(first.last()).context));
    expect([err2.type, err2.nonRetryable]).toEqual(['ModelRequestError', true]);
    expect(err2.message).toContain("KeyError: 'tool_call_id'");
  });

  it('is retried again when the request or the answer differs', async () => {
    fake.replies.push(named(), reply.error(500, 'something else broke'), named());
    const provider = new OpenAIProvider();
    const first = callContext();
    await failure(provider.call(input(), first.context));
    const second = callContext(first.last());
    expect((await failure(provider.call(input(), second.context))).nonRetryable).toBe(false);
    const other = await failure(provider.call(input({ temperature: 0.5 }), callContext(second.last()).context));
    expect(other.nonRetryable).toBe(false);
  });
});

describe('requests with tools', () => {
  it('sends tool_choice "auto" with the tools, streamed or not', async () => {
    fake.replies.push(
      reply.toolCalls([{ name: 'lookup', arguments: { topic: 'q' } }]),
      reply.toolCalls([{ name: 'lookup', arguments: { topic: 'r' } }]),
    );
    const streamed = await new OpenAIProvider().call(input({}, true), callContext().context);
    const single = await new OpenAIProvider().call(input({ stream: false }, true), callContext().context);
    expect(fake.requests.map((r) => r.body.tool_choice)).toEqual(['auto', 'auto']);
    expect(streamed.toolCalls).toEqual([
      { id: expect.stringMatching(/^call_/), name: 'lookup', arguments: '{"topic":"q"}' },
    ]);
    expect(single.toolCalls).toEqual([
      { id: expect.stringMatching(/^call_/), name: 'lookup', arguments: '{"topic":"r"}' },
    ]);
    expect(streamed.content).toBeNull();
  });
});
