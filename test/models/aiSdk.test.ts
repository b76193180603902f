/**
 * AI SDK models drive baton's agents: `@ai-sdk/openai-compatible` against the strict
 * OpenAI-compatible test server, on a real Temporal server and worker.
 */
import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { convertArrayToReadableStream, MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { aiSdk, AiSdkProvider, defineAgent, defineTool, model, Team, TeamValidationError } from '../../src';
import { ModelRequestError } from '../../src/workflow';
import type { ModelTurnEvent } from '../../src/audit/types';
import { reply, startOpenAIServer } from '../helpers/openaiServer';
import { taskQueue, useTemporalServer, withWorker } from '../helpers/temporal';
import { Viewer } from '../helpers/viewer';
import { waitFor } from '../helpers/wait';
import { createWorker } from '../../src/worker';
import { fastRetry, gptAt, researchTeam, retriedCalls, roles, soloTeam } from './aiSdk.fixtures';

const temporal = useTemporalServer();
let fake: Awaited<ReturnType<typeof startOpenAIServer>>;
beforeAll(async () => {
  fake = await startOpenAIServer();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
  fake.replies.length = 0;
});

/** The test server's gpt-4o-mini through the AI SDK, its requests mended unless `mended` is false. */
const gpt = (mended = true) => gptAt(fake.url, mended);
const solo = (settings: Parameters<typeof aiSdk>[1] = {}) => soloTeam(gpt(), settings);

describe('an AI SDK provider drives the agents', () => {
  it('answers with text, streamed into run.stream(), with usage and cost recorded', async () => {
    await withWorker(temporal.env, solo(), async (baton) => {
      fake.replies.push(
        reply.text('Hello there, streamed through the AI SDK.', {
          chunkDelayMs: 5,
          usage: { prompt: 120, completion: 12, cached: 100 },
        }),
      );
      const run = await baton.start('solo', 'hi');
      const viewer = new Viewer();
      for await (const item of run.stream()) viewer.apply(item);
      const result = await run.result();
      expect(result.output).toBe('Hello there, streamed through the AI SDK.');
      expect(viewer.text(run.workflowId, 'solo#0')).toBe('Hello there, streamed through the AI SDK.');
      expect(fake.requests[0]!.body).toMatchObject({
        model: 'gpt-4o-mini',
        stream: true,
        stream_options: { include_usage: true },
      });
      expect(roles(fake.requests[0])).toEqual(['system', 'user']);
      expect(result.usage).toMatchObject({ inputTokens: 120, outputTokens: 12 });
      // 20 uncached at 0.15, 100 cached at 0.075 and 12 out at 0.6 per million: 3 + 7.5 + 7.2 micros (25 if the cache were not counted).
      expect(result.usage.cost).toEqual({ currency: 'USD', micros: 18, unpricedCalls: 0 });
      const audit = await baton.audit(run.workflowId);
      const turn = audit.events.find(
        (e): e is ModelTurnEvent & (typeof audit.events)[number] => e.kind === 'model_turn',
      );
      expect(turn).toMatchObject({
        agent: 'solo',
        model: 'gpt-4o-mini',
        inputTokens: 120,
        outputTokens: 12,
        cachedInputTokens: 100,
        cost: { micros: 18 },
      });
    });
  });

  it('runs a tool call and a handoff, the tool answer and the handoff in the conversation the server checks', async () => {
    const team = researchTeam(gpt());
    fake.replies.push(
      reply.toolCalls([{ name: 'lookup', arguments: { topic: 'qubits' } }]),
      reply.toolCalls([{ name: 'handoff', arguments: { to: 'writer', message: 'Qubits hold superpositions.' } }]),
      reply.text('An article on qubits.'),
    );
    await withWorker(temporal.env, team, async (baton) => {
      const result = await baton.run('researcher', 'Write about qubits');
      expect(result.output).toBe('An article on qubits.');
      expect(result.finalAgent).toBe('writer');
      expect(result.handoffChain.map((h) => [h.from, h.to, h.message])).toEqual([
        ['researcher', 'writer', 'Qubits hold superpositions.'],
      ]);
    });
    const [first, second, third] = fake.requests;
    expect(first!.body.tools!.map((t) => t.function.name).sort()).toEqual(['handoff', 'lookup']);
    expect(first!.body.tool_choice).toBe('auto');
    expect(roles(second)).toEqual(['system', 'user', 'assistant', 'tool']);
    const toolAnswer = second!.body.messages.at(-1)!;
    expect(toolAnswer.content).toBe('notes on qubits');
    expect(toolAnswer.tool_call_id).toBe(second!.body.messages.at(-2)!.tool_calls![0]!.id);
    expect(JSON.stringify(third!.body.messages)).toContain('Qubits hold superpositions.');
    expect(third!.body.tools!.map((t) => t.function.name)).not.toContain('lookup');
  });

  it("fails at once, naming why, when the server refuses the provider's request (null content beside tool calls)", async () => {
    const lookup = defineTool({
      name: 'lookup',
      description: 'Look up a topic',
      parameters: z.object({ topic: z.string() }),
      execute: ({ topic }) => `notes on ${topic}`,
    });
    const team = new Team([
      defineAgent({ id: 'solo', instructions: 'Answer briefly.', model: aiSdk(gpt(false)), tools: [lookup] }),
    ]);
    fake.replies.push(reply.toolCalls([{ name: 'lookup', arguments: { topic: 'qubits' } }]), reply.text('never asked'));
    await withWorker(temporal.env, team, async (baton) => {
      const err = await baton.run('solo', 'hi', { retry: fastRetry }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ModelRequestError);
      expect((err as ModelRequestError).message).toMatch(/answered 500: .*validation error.*not retried/s);
    });
    expect(fake.requests).toHaveLength(2);
  });

  it('retries a 503, a 429 (waiting as Retry-After asks) and a stream cut short, each as a new attempt of the activity', async () => {
    await withWorker(temporal.env, solo(), async (baton) => {
      fake.replies.push(
        reply.error(503, 'overloaded'),
        reply.error(429, 'slow down', { 'retry-after': '1' }),
        reply.text('a long answer that breaks off', { cutAfterChunks: 2 }),
        reply.text('Recovered.'),
      );
      const run = await baton.start('solo', 'hi', { retry: fastRetry });
      expect((await run.result()).output).toBe('Recovered.');
      // History keeps the last attempt's start, with the failure before it.
      expect(await retriedCalls(run.handle)).toEqual([{ attempt: 4, type: 'ModelStreamInterrupted' }]);
      expect(fake.requests).toHaveLength(4);
      expect(fake.requests[2]!.at - fake.requests[1]!.at).toBeGreaterThanOrEqual(950);
    });
  });

  it('fails at once, without retrying, when the server blames the request', async () => {
    await withWorker(temporal.env, solo(), async (baton) => {
      fake.replies.push(reply.error(400, 'unknown parameter: foo'), reply.text('never asked'));
      const run = await baton.start('solo', 'hi', { retry: fastRetry });
      const err = await run.result().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ModelRequestError);
      expect((err as ModelRequestError).status).toBe(400);
      expect((err as ModelRequestError).message).toMatch(/answered 400: unknown parameter: foo/);
      expect(fake.requests).toHaveLength(1);
    });
  });

  it('aborts the model request when the call is stopped: an interrupt cuts the stream, and the model is asked again', async () => {
    await withWorker(temporal.env, solo(), async (baton) => {
      const long = Array.from({ length: 80 }, (_, i) => `otter${i}`).join(' ');
      fake.replies.push(reply.text(long, { chunkDelayMs: 40 }), reply.text('Short answer.'));
      const run = await baton.start('solo', 'Write about otters');
      const viewer = new Viewer();
      const following = (async () => {
        for await (const item of run.stream()) viewer.apply(item);
      })();
      await waitFor(
        async () => viewer.text(run.workflowId, 'solo#0') ?? '',
        (t) => t.length > 20,
      );
      await baton.interrupt(run.workflowId, 'Shorter, please.', { by: 'bob' });
      expect((await run.result()).output).toBe('Short answer.');
      await following;
      await waitFor(
        async () => fake.requests[0]!.closedEarly,
        (closed) => closed === true,
      );
      expect(viewer.text(run.workflowId, 'solo#1')).toBe('Short answer.');
    });
  });

  it("a tool call whose arguments are not JSON (the AI SDK's own mock model) is answered with the problem, and the model tries again", async () => {
    const finish = (unified: 'stop' | 'tool-calls') => ({
      type: 'finish' as const,
      finishReason: { unified, raw: unified },
      usage: {
        inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: 5, text: 5, reasoning: undefined },
      },
    });
    const mock = new MockLanguageModelV3({
      modelId: 'mock-model',
      doStream: [
        {
          stream: convertArrayToReadableStream<LanguageModelV3StreamPart>([
            { type: 'tool-call', toolCallId: 't1', toolName: 'lookup', input: '{"topic": qubits' },
            finish('tool-calls'),
          ]),
        },
        {
          stream: convertArrayToReadableStream<LanguageModelV3StreamPart>([
            { type: 'tool-call', toolCallId: 't2', toolName: 'lookup', input: '{"topic": "qubits"}' },
            finish('tool-calls'),
          ]),
        },
        {
          stream: convertArrayToReadableStream<LanguageModelV3StreamPart>([
            { type: 'text-delta', id: '1', delta: 'Done.' },
            finish('stop'),
          ]),
        },
      ],
    });
    let ran = 0;
    const lookup = defineTool({
      name: 'lookup',
      description: 'Look up a topic',
      parameters: z.object({ topic: z.string() }),
      execute: ({ topic }) => `notes on ${topic} (${++ran})`,
    });
    const team = new Team([
      defineAgent({ id: 'solo', instructions: 'Answer briefly.', model: aiSdk(mock), tools: [lookup] }),
    ]);
    await withWorker(temporal.env, team, async (baton) => expect((await baton.run('solo', 'hi')).output).toBe('Done.'));
    expect(ran).toBe(1);
    const answered = mock.doStreamCalls[1]!.prompt.at(-1)!;
    expect(answered).toMatchObject({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 't1',
          toolName: 'lookup',
          output: { type: 'text', value: expect.stringMatching(/JSON/) },
        },
      ],
    });
    expect(mock.doStreamCalls[2]!.prompt.at(-1)).toMatchObject({
      role: 'tool',
      content: [{ toolCallId: 't2', output: { value: 'notes on qubits (1)' } }],
    });
  });

  it("a model named in the spec is found in the worker's AiSdkProvider; a name it lacks fails the worker at start", async () => {
    const team = new Team([
      defineAgent({ id: 'solo', instructions: 'Answer briefly.', model: model('ai-sdk', 'house-model') }),
    ]);
    fake.replies.push(reply.text('From the named model.'));
    await withWorker(
      temporal.env,
      team,
      async (baton) => expect((await baton.run('solo', 'hi')).output).toBe('From the named model.'),
      {
        providers: { 'ai-sdk': new AiSdkProvider({ models: { 'house-model': gpt() }, stream: false }) },
      },
    );
    expect(fake.requests[0]!.body.stream).toBeFalsy();
    await expect(
      createWorker({ team, connection: temporal.env.nativeConnection, taskQueue: taskQueue() }),
    ).rejects.toBeInstanceOf(TeamValidationError);
  });
});
