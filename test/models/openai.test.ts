import { defaultPayloadConverter } from '@temporalio/common';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool, openai, OpenAIProvider, Team } from '../../src';
import { ModelRequestError } from '../../src/workflow';
import type { OpenAICallProgress } from '../../src/models/openaiAttempts';
import { estimateTokens } from '../../src/models/provider';
import { activitiesInHistory } from '../helpers/history';
import { reply, startOpenAIServer, type FakeRequest } from '../helpers/openaiServer';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const temporal = useTemporalServer();
type FakeServer = Awaited<ReturnType<typeof startOpenAIServer>>;
let fake: FakeServer;
let llamaLike: FakeServer;
beforeAll(async () => {
  fake = await startOpenAIServer();
  // Like llama-cpp-python's chatml-function-calling format: no tool calls in a stream.
  llamaLike = await startOpenAIServer({ streamsToolCalls: false });
});
afterAll(async () => {
  await fake.close();
  await llamaLike.close();
});
beforeEach(() => {
  for (const server of [fake, llamaLike]) {
    server.requests.length = 0;
    server.replies.length = 0;
  }
});

const fastRetry = { initialInterval: '100 ms', maximumInterval: '200 ms' };
const model = (server = fake) => openai('gpt-fake', { baseURL: server.url, temperature: 0 });
const solo = () => new Team([defineAgent({ id: 'solo', instructions: 'Answer briefly.', model: model() })]);
const notStreaming = { providers: { openai: new OpenAIProvider({ stream: false }) } };

/** Researcher (with a lookup tool) hands off to writer. */
function researchTeam(server = fake) {
  const lookup = defineTool({
    name: 'lookup',
    description: 'Look up a topic',
    parameters: z.object({ topic: z.string() }),
    execute: ({ topic }) => `notes on ${topic}`,
  });
  return new Team([
    defineAgent({ id: 'researcher', instructions: 'Research, then hand off.', model: model(server), tools: [lookup] }),
    defineAgent({ id: 'writer', description: 'Writes articles', instructions: 'Write.', model: model(server) }),
  ]);
}

function researchReplies() {
  return [
    reply.toolCalls([{ name: 'lookup', arguments: { topic: 'qubits' } }]),
    reply.toolCalls([{ name: 'handoff', arguments: { to: 'writer', message: 'Qubits hold superpositions.' } }]),
    reply.text('An article.'),
  ];
}

/** The assistant messages with tool calls that a request carried. */
function assistantToolTurns(requests: FakeRequest[]) {
  return requests.flatMap((r) => r.body.messages.filter((m) => m.role === 'assistant' && m.tool_calls?.length));
}

describe('the openai provider against an OpenAI-compatible server', () => {
  it('runs a handoff chain, streamed, with tool_choice "auto"', async () => {
    fake.replies.push(
      reply.toolCalls([{ name: 'lookup', arguments: { topic: 'qubits' } }]),
      // Two handoffs in one turn: the first wins, the second is answered, so the next request is valid.
      reply.toolCalls([
        { name: 'handoff', arguments: { to: 'ghost', message: 'x' } },
        { name: 'handoff', arguments: { to: 'writer', message: 'never used' } },
      ]),
      reply.toolCalls([{ name: 'handoff', arguments: { to: 'writer', message: 'Qubits hold superpositions.' } }]),
      reply.text('An article.'),
    );
    const result = await withWorker(temporal.env, researchTeam(), (baton) =>
      baton.run('researcher', 'quantum', { onInvalidHandoff: 'retry' }),
    );
    expect(result).toMatchObject({
      output: 'An article.',
      finalAgent: 'writer',
      usage: { modelCalls: 4, inputTokens: 80, outputTokens: 40 },
    });
    expect(result.handoffChain.map((h) => h.message)).toEqual(['Qubits hold superpositions.']);

    const [first, second, third, fourth] = fake.requests;
    expect(fake.requests).toHaveLength(4);
    expect(first?.authorization).toBe('Bearer unused');
    expect(first?.body).toMatchObject({
      model: 'gpt-fake',
      stream: true,
      stream_options: { include_usage: true },
      tool_choice: 'auto',
    });
    expect(first?.body.messages).toEqual([
      { role: 'system', content: 'Research, then hand off.' },
      { role: 'user', content: 'quantum' },
    ]);
    expect(first?.body.tools?.map((t) => t.function.name)).toEqual(['lookup', 'handoff']);
    expect(first?.body.tools?.[1]?.function.parameters).toMatchObject({ properties: { to: { enum: ['writer'] } } });
    expect(first?.body.tools?.[1]?.function.description).toContain('- writer: Writes articles');
    expect(second?.body.messages.at(-1)).toMatchObject({ role: 'tool', content: 'notes on qubits' });
    expect(third?.body.messages.slice(-2).map((m) => m.content)).toEqual([
      expect.stringMatching(/"ghost"/),
      expect.stringMatching(/^Ignored/),
    ]);
    expect(fourth?.body.messages).toEqual([
      { role: 'system', content: 'Write.' },
      { role: 'user', content: 'Qubits hold superpositions.' },
    ]);
    expect(fourth?.body.tools?.map((t) => t.function.name)).toEqual(['handoff']);
    expect(fake.requests.map((r) => r.body.tool_choice)).toEqual(['auto', 'auto', 'auto', 'auto']);
    expect(assistantToolTurns(fake.requests).map((m) => m.content)).toEqual(['', '', '']);
  });

  it('runs the same chain without streaming: tool_choice "auto", no null content', async () => {
    fake.replies.push(...researchReplies());
    const result = await withWorker(
      temporal.env,
      researchTeam(),
      (baton) => baton.run('researcher', 'quantum'),
      notStreaming,
    );
    expect(result).toMatchObject({ output: 'An article.', finalAgent: 'writer' });
    expect(fake.requests.map((r) => [r.body.stream, r.body.tool_choice])).toEqual([
      [undefined, 'auto'],
      [undefined, 'auto'],
      [undefined, 'auto'],
    ]);
    expect(assistantToolTurns(fake.requests).map((m) => m.content)).toEqual(['']);
  });

  it('hands off on a server that cannot stream tool calls, asking it without streaming', async () => {
    llamaLike.replies.push(...researchReplies());
    const { result, history } = await withWorker(temporal.env, researchTeam(llamaLike), async (baton) => {
      const run = await baton.start('researcher', 'quantum', { retry: fastRetry });
      return { result: await run.result(), history: await activitiesInHistory(run.handle) };
    });
    expect(result).toMatchObject({ output: 'An article.', finalAgent: 'writer' });
    // The first request fails to stream its tool call and is asked again at once; the provider remembers.
    expect(llamaLike.requests.map((r) => r.body.stream)).toEqual([true, undefined, undefined, undefined]);
    expect(history.filter((a) => a.name === 'callModel').map((a) => a.attempt)).toEqual([1, 1, 1]);
  });

  it('completes a stream longer than the heartbeat timeout, heartbeating per chunk', async () => {
    const text = 'A slow local model writes this answer a few characters at a time.';
    fake.replies.push(reply.text(text, { chunkDelayMs: 250 }));
    const { result, history, progress, elapsed } = await withWorker(temporal.env, solo(), async (baton) => {
      const started = Date.now();
      const run = await baton.start('solo', 'write slowly', { heartbeatTimeout: '2 seconds', retry: fastRetry });
      const seen = await waitFor(
        async () => {
          const pending = (await run.handle.describe()).raw.pendingActivities ?? [];
          const payload = pending[0]?.heartbeatDetails?.payloads?.[0];
          return payload ? defaultPayloadConverter.fromPayload<OpenAICallProgress>(payload) : undefined;
        },
        (p) => (p?.chunks ?? 0) >= 5,
      );
      const done = await run.result();
      return {
        result: done,
        history: await activitiesInHistory(run.handle),
        progress: seen,
        elapsed: Date.now() - started,
      };
    });
    expect(result.output).toBe(text);
    expect(progress?.chunks).toBeGreaterThanOrEqual(5);
    expect(elapsed).toBeGreaterThan(2_000 * 2);
    expect(history.find((a) => a.name === 'callModel')?.attempt).toBe(1);
    expect(fake.requests).toHaveLength(1);
  });

  it('stops streaming when the run is cancelled', async () => {
    fake.replies.push(reply.text('x'.repeat(400), { chunkDelayMs: 200 }));
    const outcome = await withWorker(temporal.env, solo(), async (baton) => {
      const run = await baton.start('solo', 'hi', { heartbeatTimeout: '2 seconds' });
      await waitFor(
        async () => (await run.handle.describe()).raw.pendingActivities?.[0]?.heartbeatDetails?.payloads?.length ?? 0,
        (n) => n > 0,
      );
      await run.handle.cancel();
      const result = await run.result().catch((e: unknown) => e);
      // While the worker still runs, so that its shutdown is not what closes the stream.
      const request = await waitFor(
        async () => fake.requests[0],
        (r) => r?.closedEarly === true,
        10_000,
      );
      return { result, closedAfterMs: Date.now() - request!.at };
    });
    expect(outcome.result).toBeInstanceOf(Error);
    // 400 characters take more than 20 s to stream; the request is closed within a few heartbeats.
    expect(outcome.closedAfterMs).toBeLessThan(15_000);
    expect(fake.requests).toHaveLength(1);
  });

  it('retries a stream cut off mid-way as a stream', async () => {
    fake.replies.push(reply.text('an answer that breaks off', { cutAfterChunks: 3 }), reply.text('whole'));
    const { result, history } = await withWorker(temporal.env, solo(), async (baton) => {
      const run = await baton.start('solo', 'hi', { retry: fastRetry });
      return { result: await run.result(), history: await activitiesInHistory(run.handle) };
    });
    expect(result.output).toBe('whole');
    expect(fake.requests.map((r) => r.body.stream)).toEqual([true, true]);
    expect(history.find((a) => a.name === 'callModel')?.attempt).toBe(2);
  });

  it('estimates usage when the stream has none', async () => {
    fake.replies.push(reply.text('counted by length', { omitUsage: true }));
    const result = await withWorker(temporal.env, solo(), (baton) => baton.run('solo', 'hi'));
    expect(result.usage).toMatchObject({ modelCalls: 1, outputTokens: estimateTokens('counted by length') });
    expect(result.usage.inputTokens).toBeGreaterThan(0);
  });
});

describe('what is retried and what fails at once', () => {
  async function runSolo(options: { notStreaming?: boolean } = {}) {
    return withWorker(
      temporal.env,
      solo(),
      async (baton) => {
        const run = await baton.start('solo', 'hi', { retry: fastRetry });
        const outcome = await run.result().catch((e: unknown) => e);
        return { outcome, history: await activitiesInHistory(run.handle) };
      },
      options.notStreaming ? notStreaming : {},
    );
  }

  it('waits as long as a 429 Retry-After asks, then succeeds', async () => {
    fake.replies.push(reply.error(429, 'slow down', { 'retry-after': '3' }), reply.text('after the wait'));
    const { outcome, history } = await runSolo();
    expect(outcome).toMatchObject({ output: 'after the wait' });
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[1]!.at - fake.requests[0]!.at).toBeGreaterThanOrEqual(2900);
    expect(history.find((a) => a.name === 'callModel')?.attempt).toBe(2);
  });

  it('retries a plain 500, and a generic one twice', async () => {
    fake.replies.push(
      reply.error(500, 'upstream broke'),
      reply.error(500, 'Internal Server Error'),
      reply.error(500, 'Internal Server Error'),
      reply.text('recovered'),
    );
    const { outcome, history } = await runSolo();
    expect(outcome).toMatchObject({ output: 'recovered' });
    expect(fake.requests).toHaveLength(4);
    expect(history.find((a) => a.name === 'callModel')?.attempt).toBe(4);
  });

  it('fails a 500 whose answer blames the request at once, with ModelRequestError', async () => {
    fake.replies.push(
      reply.raw(500, {
        detail:
          '1 validation error for CreateChatCompletionRequest\nmessages.1.content\n  Input should be a valid string',
      }),
      reply.text('never sent'),
    );
    const { outcome, history } = await runSolo();
    expect(outcome).toBeInstanceOf(ModelRequestError);
    expect((outcome as ModelRequestError).status).toBe(500);
    expect((outcome as Error).message).toContain('validation error');
    expect(fake.requests).toHaveLength(1);
    expect(history.find((a) => a.name === 'callModel')?.attempt).toBe(1);
  });

  it('fails the same named 500 for the same request on the second attempt', async () => {
    const same = () => reply.error(500, "KeyError: 'tool_call_id'");
    fake.replies.push(same(), same(), reply.text('never sent'));
    const { outcome, history } = await runSolo({ notStreaming: true });
    expect(outcome).toBeInstanceOf(ModelRequestError);
    expect((outcome as Error).message).toContain('previous attempt');
    expect(fake.requests).toHaveLength(2);
    expect(history.find((a) => a.name === 'callModel')?.attempt).toBe(2);
  });

  it('fails a 501 and a 401 at once', async () => {
    fake.replies.push(
      reply.error(501, 'Not Implemented'),
      reply.error(401, 'Incorrect API key provided'),
      reply.text('never sent'),
    );
    const first = await runSolo();
    const second = await runSolo();
    expect([first.outcome, second.outcome].map((e) => (e as ModelRequestError).status)).toEqual([501, 401]);
    expect(second.outcome).toBeInstanceOf(ModelRequestError);
    expect((second.outcome as Error).message).toMatch(/401/);
    expect(fake.requests).toHaveLength(2);
  });
});
