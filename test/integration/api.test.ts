/** What an OpenAI Agents SDK user reaches for: a run context for tools, providers by name, structured output. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AnthropicProvider } from '../../examples/providers/anthropic';
import { defineAgent, defineTool, model, scripted, Team } from '../../src';
import { OutputValidationError } from '../../src/workflow';
import { activitiesInHistory } from '../helpers/history';
import { useTemporalServer, withWorker } from '../helpers/temporal';

const server = useTemporalServer();

describe('run context', () => {
  it('reaches every tool call of the run, carried across handoffs', async () => {
    const seen: unknown[] = [];
    const whoAmI = defineTool<z.ZodObject, { userId: number; plan: string }>({
      name: 'whoAmI',
      description: 'The current user',
      parameters: z.object({}),
      execute: (_args, { context }) => (seen.push(context), `user ${context.userId} on ${context.plan}`),
    });
    const team = new Team([
      defineAgent({
        id: 'a',
        instructions: 'A',
        model: scripted([
          { toolCalls: [{ name: 'whoAmI', arguments: {} }] },
          { handoff: { to: 'b', message: 'over' } },
        ]),
        tools: [whoAmI],
      }),
      defineAgent({
        id: 'b',
        instructions: 'B',
        model: scripted([{ toolCalls: [{ name: 'whoAmI', arguments: {} }] }, { text: 'done' }]),
        tools: [whoAmI],
      }),
    ]);
    await withWorker(server.env, team, async (baton) => {
      const result = await baton.run('a', 'go', { context: { userId: 7, plan: 'pro' } });
      expect(result.output).toBe('done');
      expect(seen).toEqual([
        { userId: 7, plan: 'pro' },
        { userId: 7, plan: 'pro' },
      ]);
      await expect(baton.start('a', 'go', { context: [] as never })).rejects.toThrow(/"context" must be a JSON object/);
    });
  });
});

describe('providers by name', () => {
  it('runs a chain on a provider the worker registers: the Anthropic example against a Messages API server', async () => {
    const requests: { model: string; system: string; messages: unknown[]; tools?: { name: string }[] }[] = [];
    const answers = [
      {
        content: [
          { type: 'tool_use', id: 'toolu_1', name: 'handoff', input: { to: 'writer', message: 'facts: teapots' } },
        ],
        usage: { input_tokens: 30, output_tokens: 9 },
      },
      { content: [{ type: 'text', text: 'An article about teapots.' }], usage: { input_tokens: 12, output_tokens: 6 } },
    ];
    const api = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        requests.push(JSON.parse(body) as (typeof requests)[number]);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ...answers.shift(), model: 'claude-test', role: 'assistant', type: 'message' }));
      });
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    const baseURL = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    try {
      const claude = model('anthropic', 'claude-test', { maxTokens: 256 });
      const team = new Team([
        defineAgent({ id: 'researcher', instructions: 'Find facts.', model: claude }),
        defineAgent({ id: 'writer', instructions: 'Write.', model: claude }),
      ]);
      const result = await withWorker(server.env, team, (baton) => baton.run('researcher', 'teapots'), {
        providers: { anthropic: new AnthropicProvider({ apiKey: 'test', baseURL }) },
      });
      expect(result).toMatchObject({
        output: 'An article about teapots.',
        finalAgent: 'writer',
        usage: { inputTokens: 42, outputTokens: 15 },
      });
      expect(requests[0]).toMatchObject({ model: 'claude-test', system: 'Find facts.', tools: [{ name: 'handoff' }] });
      expect(requests[1]?.messages).toEqual([{ role: 'user', content: 'facts: teapots' }]);
    } finally {
      api.close();
    }
  });
});

describe('structured output', () => {
  const Refund = z.object({ refunded: z.boolean(), amount: z.number() });

  it('sends an answer that does not match the output type back, and returns the parsed value', async () => {
    const team = new Team([
      defineAgent({
        id: 'refunds',
        instructions: 'Refund.',
        outputType: Refund,
        model: scripted([
          { text: 'Sure, refunded!' },
          { text: '{"refunded": true, "amount": "59.90"}' },
          { text: '```json\n{"refunded": true, "amount": 59.9}\n```' },
        ]),
      }),
    ]);
    await withWorker(server.env, team, async (baton) => {
      const run = await baton.start<z.infer<typeof Refund>>('refunds', 'refund order 1042');
      const result = await run.result();
      expect(result.output).toEqual({ refunded: true, amount: 59.9 });
      const calls = (await activitiesInHistory(run.handle)).filter((a) => a.name === 'callModel');
      expect(calls).toHaveLength(3);
      const lastInput = calls[2]!.input as { messages: { role: string; content: string }[]; outputSchema?: unknown };
      expect(lastInput.outputSchema).toMatchObject({ type: 'object', properties: { refunded: { type: 'boolean' } } });
      expect(lastInput.messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual([
        'refund order 1042',
        expect.stringMatching(/^Your answer does not match the required output: it is not JSON/),
        expect.stringMatching(/^Your answer does not match the required output: amount: .*number/),
      ]);
    });
  });

  it('fails with OutputValidationError once the retries are used up', async () => {
    const team = new Team([
      defineAgent({
        id: 'a',
        instructions: 'A',
        outputType: Refund,
        model: scripted([{ text: 'no' }, { text: 'still no' }]),
      }),
    ]);
    await withWorker(server.env, team, async (baton) => {
      const failure = await baton.run('a', 'go', { maxOutputRetries: 1 }).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(OutputValidationError);
      expect(failure).toMatchObject({ agent: 'a', attempts: 2 });
    });
  });
});
