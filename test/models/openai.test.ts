import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool, ModelRequestError, openai, Team } from '../../src';
import { isRetryableStatus, retryAfterMs } from '../../src/models/openai';
import { activitiesInHistory } from '../helpers/history';
import { reply, startOpenAIServer } from '../helpers/openaiServer';
import { useTemporalServer, withWorker } from '../helpers/temporal';

const temporal = useTemporalServer();
let fake: Awaited<ReturnType<typeof startOpenAIServer>>;
beforeAll(async () => {
  fake = await startOpenAIServer();
});
afterAll(() => fake.close());

const fastRetry = { initialInterval: '100 ms', maximumInterval: '200 ms' };
const model = () => openai('gpt-fake', { baseURL: fake.url, temperature: 0 });
const solo = () => new Team([defineAgent({ id: 'solo', instructions: 'Answer briefly.', model: model() })]);

describe('retry classification', () => {
  it('retries 408, 409, 429 and 5xx only', () => {
    expect([408, 409, 429, 500, 502, 503].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 422].some(isRetryableStatus)).toBe(false);
  });
  it('reads Retry-After in seconds, as a date, and retry-after-ms', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }))).toBe(2000);
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '150' }))).toBe(150);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }), now)).toBe(3000);
    expect(retryAfterMs(new Headers({}))).toBeUndefined();
  });
});

describe('the openai provider against an OpenAI-compatible server', () => {
  it('runs a handoff chain through Chat Completions with tools', async () => {
    fake.requests.length = 0;
    const lookup = defineTool({ name: 'lookup', description: 'Look up a topic', parameters: z.object({ topic: z.string() }), execute: ({ topic }) => `notes on ${topic}` });
    const team = new Team([
      defineAgent({ id: 'researcher', instructions: 'Research, then hand off.', model: model(), tools: [lookup] }),
      defineAgent({ id: 'writer', description: 'Writes articles', instructions: 'Write.', model: model() }),
    ]);
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
    const result = await withWorker(temporal.env, team, (baton) => baton.run('researcher', 'quantum', { onInvalidHandoff: 'retry' }));
    expect(result).toMatchObject({ output: 'An article.', finalAgent: 'writer', usage: { modelCalls: 4, inputTokens: 80, outputTokens: 40 } });
    expect(result.handoffChain.map((h) => h.message)).toEqual(['Qubits hold superpositions.']);

    const [first, second, third, fourth] = fake.requests;
    expect(first?.authorization).toBe('Bearer unused');
    expect(first?.body.model).toBe('gpt-fake');
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
  });

  it('waits as long as a 429 Retry-After asks, then succeeds', async () => {
    fake.requests.length = 0;
    fake.replies.push(reply.error(429, 'slow down', { 'retry-after': '3' }), reply.text('after the wait'));
    const { result, history } = await withWorker(temporal.env, solo(), async (baton) => {
      const run = await baton.start('solo', 'hi', { retry: fastRetry });
      return { result: await run.result(), history: await activitiesInHistory(run.handle) };
    });
    expect(result.output).toBe('after the wait');
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[1]!.at - fake.requests[0]!.at).toBeGreaterThanOrEqual(2900);
    expect(history.find((a) => a.name === 'callModel')?.attempt).toBe(2);
  });

  it('retries a 500', async () => {
    fake.requests.length = 0;
    fake.replies.push(reply.error(500, 'upstream broke'), reply.text('recovered'));
    const result = await withWorker(temporal.env, solo(), (baton) => baton.run('solo', 'hi', { retry: fastRetry }));
    expect(result.output).toBe('recovered');
    expect(fake.requests).toHaveLength(2);
  });

  it('fails fast on a 401 with ModelRequestError', async () => {
    fake.requests.length = 0;
    fake.replies.push(reply.error(401, 'Incorrect API key provided'), reply.text('never sent'));
    const err = await withWorker(temporal.env, solo(), (baton) => baton.run('solo', 'hi', { retry: fastRetry }).catch((e: unknown) => e));
    expect(err).toBeInstanceOf(ModelRequestError);
    expect((err as ModelRequestError).status).toBe(401);
    expect((err as Error).message).toMatch(/401/);
    expect(fake.requests).toHaveLength(1);
    fake.replies.length = 0;
  });
});
