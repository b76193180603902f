/** Structured answers through the OpenAI provider: `response_format` where it works, the schema as an instruction elsewhere. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, openai, OpenAIProvider, Team } from '../../src';
import type { CallModelInput, ModelResponse } from '../../src/common/model';
import type { ModelCallContext } from '../../src/models/provider';
import { outputInstruction, outputRequest } from '../../src/models/openaiOutput';
import { activitiesInHistory } from '../helpers/history';
import { reply, startOpenAIServer, type FakeReply } from '../helpers/openaiServer';
import { useTemporalServer, withWorker } from '../helpers/temporal';

const temporal = useTemporalServer();
type FakeServer = Awaited<ReturnType<typeof startOpenAIServer>>;
let fake: FakeServer;
let llamaLike: FakeServer;
let vllmLike: FakeServer;
beforeAll(async () => {
  fake = await startOpenAIServer();
  llamaLike = await startOpenAIServer({ responseFormat: 'llama-cpp-python' });
  vllmLike = await startOpenAIServer({ responseFormat: 'vllm' });
});
afterAll(async () => {
  for (const server of [fake, llamaLike, vllmLike]) await server.close();
});
beforeEach(() => {
  for (const server of [fake, llamaLike, vllmLike]) {
    server.requests.length = 0;
    server.replies.length = 0;
  }
});

const Refund = z.object({ refunded: z.boolean(), amount: z.number() });
const schema = z.toJSONSchema(Refund) as Record<string, unknown>;
delete schema.$schema;
const refundJson = '{"refunded": true, "amount": 59.9}';
const lookupTool = {
  name: 'lookup',
  description: 'Look up an order',
  parameters: { type: 'object', properties: { orderId: { type: 'string' } } },
};
/** What the model says when nothing holds it to the schema, and what it writes when something does. */
const prose = (faults: Omit<FakeReply, 'body'> = {}) =>
  reply.text('Sure, your refund of $59.90 is on its way!', { formatted: refundJson, ...faults });

function input(server: FakeServer, withTools: boolean): CallModelInput {
  return {
    agentId: 'refunds',
    model: openai('gpt-fake', { baseURL: server.url }),
    messages: [
      { role: 'system', content: 'Refund.' },
      { role: 'user', content: 'refund order 1042' },
    ],
    tools: withTools ? [lookupTool] : [],
    callIndex: 0,
    outputSchema: schema,
  };
}

const context: ModelCallContext = {
  attempt: 1,
  signal: new AbortController().signal,
  sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
};
const call = (provider: OpenAIProvider, i: CallModelInput): Promise<ModelResponse> => provider.call(i, context);
const asked = { type: 'json_schema', json_schema: { name: 'output', schema, strict: false } };

describe('structured answers from the openai provider', () => {
  it('asks with response_format json_schema (not strict) when the request has no tools', async () => {
    fake.replies.push(prose());
    const answer = await call(new OpenAIProvider(), input(fake, false));
    expect(answer.content).toBe(refundJson);
    expect(fake.requests[0]!.body.response_format).toEqual(asked);
    expect(fake.requests[0]!.body.messages[0]).toEqual({ role: 'system', content: 'Refund.' });
  });

  it('beside tools, tells the model the schema in its system message, and the tools stay callable', async () => {
    fake.replies.push(reply.toolCalls([{ name: 'lookup', arguments: { orderId: '1042' } }]), reply.text(refundJson));
    const provider = new OpenAIProvider({ stream: false });
    expect((await call(provider, input(fake, true))).toolCalls.map((c) => c.name)).toEqual(['lookup']);
    expect((await call(provider, input(fake, true))).content).toBe(refundJson);
    for (const request of fake.requests) {
      expect(request.body.response_format).toBeUndefined();
      expect(request.body.tool_choice).toBe('auto');
      expect(request.body.messages[0]).toEqual({ role: 'system', content: `Refund.\n\n${outputInstruction(schema)}` });
    }
  });

  it('sends response_format beside tools when told to (always), and OpenAI still calls tools', async () => {
    fake.replies.push(reply.toolCalls([{ name: 'lookup', arguments: { orderId: '1042' } }]), prose());
    const provider = new OpenAIProvider({ responseFormat: 'always' });
    expect((await call(provider, input(fake, true))).toolCalls.map((c) => c.name)).toEqual(['lookup']);
    expect((await call(provider, input(fake, true))).content).toBe(refundJson);
    expect(fake.requests.map((r) => [r.body.response_format, r.body.tool_choice])).toEqual([
      [asked, 'auto'],
      [asked, 'auto'],
    ]);
  });

  it('by default keeps tool calls (and so handoffs) on a server that holds the whole answer to the format', async () => {
    const lookup = reply.toolCalls([{ name: 'lookup', arguments: { orderId: '1042' } }], { formatted: refundJson });
    vllmLike.replies.push(lookup, structuredClone(lookup));
    expect((await call(new OpenAIProvider(), input(vllmLike, true))).toolCalls.map((c) => c.name)).toEqual(['lookup']);
    // What `always` would do there: the tool call is lost to the format.
    const forced = await call(new OpenAIProvider({ responseFormat: 'always' }), input(vllmLike, true));
    expect(forced).toMatchObject({ content: refundJson, toolCalls: [] });
  });

  it('asks llama-cpp-python, which refuses json_schema, its own json_object with a schema at once, and remembers', async () => {
    llamaLike.replies.push(prose(), prose());
    const provider = new OpenAIProvider();
    expect((await call(provider, input(llamaLike, false))).content).toBe(refundJson);
    expect((await call(provider, input(llamaLike, false))).content).toBe(refundJson);
    expect(llamaLike.requests.map((r) => r.body.response_format)).toEqual([
      asked,
      { type: 'json_object', schema },
      { type: 'json_object', schema },
    ]);
    expect(llamaLike.requests[1]!.body.messages[0]!.content).toContain(outputInstruction(schema));
  });

  it('falls back through the formats a server offers (json_schema, json_object with a schema, json_object), then to the instruction alone', async () => {
    const objectOnly = await startOpenAIServer({ responseFormat: 'json_object' });
    const noFormat = await startOpenAIServer({ responseFormat: 'none' });
    try {
      objectOnly.replies.push(prose());
      noFormat.replies.push(prose(), reply.text(refundJson));
      const provider = new OpenAIProvider();
      expect((await call(provider, input(objectOnly, false))).content).toBe(refundJson);
      expect(objectOnly.requests.map((r) => r.body.response_format)).toEqual([
        asked,
        { type: 'json_object', schema },
        { type: 'json_object' },
      ]);
      // The model does as the instruction says, with nothing to hold it to the schema.
      expect((await call(provider, input(noFormat, false))).content).toBe('Sure, your refund of $59.90 is on its way!');
      expect((await call(provider, input(noFormat, false))).content).toBe(refundJson);
      expect(noFormat.requests.map((r) => r.body.response_format?.type ?? 'none')).toEqual([
        'json_schema',
        'json_object',
        'json_object',
        'none',
        'none',
      ]);
      expect(noFormat.requests.at(-1)!.body.messages[0]!.content).toContain(outputInstruction(schema));
    } finally {
      await objectOnly.close();
      await noFormat.close();
    }
  });

  it('never sends response_format when told so', async () => {
    fake.replies.push(reply.text(refundJson));
    await call(new OpenAIProvider({ responseFormat: 'never' }), input(fake, false));
    expect(fake.requests[0]!.body.response_format).toBeUndefined();
    expect(fake.requests[0]!.body.messages[0]!.content).toContain(outputInstruction(schema));
  });

  it('auto sends it beside tools only to OpenAI itself (and Azure OpenAI)', () => {
    const facts = (baseURL: string, tools = true) => ({ tools, baseURL });
    expect(outputRequest('auto', facts('https://api.openai.com/v1'))).toBe('json_schema');
    expect(outputRequest('auto', facts('https://my-team.openai.azure.com/openai/v1'))).toBe('json_schema');
    expect(outputRequest('auto', facts('http://127.0.0.1:8000/v1'))).toBe('instruction');
    expect(outputRequest('auto', facts('http://127.0.0.1:8000/v1', false))).toBe('json_schema');
    expect(outputRequest('without-tools', facts('https://api.openai.com/v1'))).toBe('instruction');
    expect(outputRequest('always', { ...facts('http://127.0.0.1:8000/v1'), offered: 'json_object_schema' })).toBe(
      'json_object_schema',
    );
    expect(outputRequest('never', facts('http://127.0.0.1:8000/v1', false))).toBe('instruction');
  });
});

describe('an agent with an outputType on the openai provider', () => {
  it('gets its typed answer in one call when the server honours response_format', async () => {
    fake.replies.push(prose());
    const team = new Team([
      defineAgent({
        id: 'refunds',
        instructions: 'Refund.',
        outputType: Refund,
        model: openai('gpt-fake', { baseURL: fake.url }),
      }),
    ]);
    await withWorker(temporal.env, team, async (baton) => {
      const run = await baton.start<z.infer<typeof Refund>>('refunds', 'refund order 1042');
      expect((await run.result()).output).toEqual({ refunded: true, amount: 59.9 });
      expect((await activitiesInHistory(run.handle)).filter((a) => a.name === 'callModel')).toHaveLength(1);
    });
    expect(fake.requests.map((r) => r.body.response_format)).toEqual([asked]);
  });

  it('gets its typed answer on llama-cpp-python, which refuses json_schema but takes json_object with a schema', async () => {
    llamaLike.replies.push(prose(), prose(), prose());
    const team = new Team([
      defineAgent({
        id: 'refunds',
        instructions: 'Refund.',
        outputType: Refund,
        model: openai('gpt-fake', { baseURL: llamaLike.url }),
      }),
    ]);
    await withWorker(temporal.env, team, async (baton) => {
      for (let i = 0; i < 2; i += 1) {
        const run = await baton.start<z.infer<typeof Refund>>('refunds', `refund order ${1042 + i}`);
        expect((await run.result()).output).toEqual({ refunded: true, amount: 59.9 });
        expect((await activitiesInHistory(run.handle)).filter((a) => a.name === 'callModel')).toHaveLength(1);
      }
    });
    // json_schema once; from then on, in this worker, the format the server took.
    expect(llamaLike.requests.map((r) => r.body.response_format?.type)).toEqual([
      'json_schema',
      'json_object',
      'json_object',
    ]);
  });

  it('in a team (with the handoff tool), gets it from the schema in the system message', async () => {
    fake.replies.push(
      reply.toolCalls([{ name: 'handoff', arguments: { to: 'refunds', message: 'Refund order 1042' } }]),
      reply.text(refundJson),
    );
    const model = openai('gpt-fake', { baseURL: fake.url });
    const team = new Team([
      defineAgent({ id: 'triage', instructions: 'Route.', model }),
      defineAgent({ id: 'refunds', instructions: 'Refund.', outputType: Refund, model }),
    ]);
    const result = await withWorker(temporal.env, team, (baton) =>
      baton.run<z.infer<typeof Refund>>('triage', 'refund order 1042'),
    );
    expect(result).toMatchObject({ finalAgent: 'refunds', output: { refunded: true, amount: 59.9 } });
    const [triage, refunds] = fake.requests;
    expect(triage!.body.messages[0]).toEqual({ role: 'system', content: 'Route.' });
    expect(refunds!.body.tools?.map((t) => t.function.name)).toEqual(['handoff']);
    expect(refunds!.body.response_format).toBeUndefined();
    expect(refunds!.body.messages[0]!.content).toContain(outputInstruction(schema));
  });
});
