import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool, openai, OpenAIProvider, scripted, Team, ToolExecutionError } from '../../src';
import type { PayloadCodecOptions } from '../../src/payloads/keys';
import { reply, startOpenAIServer } from '../helpers/openaiServer';
import { useTemporalServer } from '../helpers/temporal';
import { encryptionKey, found, rawChainBytes, withCodec } from './helpers';

const server = useTemporalServer();
let fake: Awaited<ReturnType<typeof startOpenAIServer>>;
beforeAll(async () => {
  fake = await startOpenAIServer();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.requests.length = 0;
  fake.replies.length = 0;
});

const fastRetry = { initialInterval: '100 ms', maximumInterval: '200 ms' };
// Each a string that appears nowhere else, so finding it in history can only mean it leaked.
const SECRETS = {
  instructions: 'INSTR-91c2 You are the bank teller.',
  prompt: 'PROMPT-7f3a what is the balance of my savings account?',
  toolArgument: 'ACCT-5521-d4e8',
  toolResult: 'RESULT-88231.17-balance',
  toolError: 'TOOLERR-1b7 ledger timed out',
  handoffMessage: 'HANDOFF-c0de the customer wants to close the account',
  answer: 'ANSWER-e9b1 Your account is closed.',
};

function bankTeam(apiKeyEcho?: string) {
  let attempts = 0;
  const balance = defineTool({
    name: 'balance',
    description: 'Balance of an account',
    parameters: z.object({ account: z.string() }),
    execute: ({ account }) => {
      attempts += 1;
      // A failing first attempt: its message is recorded with the retried call.
      if (attempts === 1) throw new Error(`${SECRETS.toolError} for ${account}`);
      return `${SECRETS.toolResult} on ${account}`;
    },
  });
  const model = openai('gpt-fake', { baseURL: fake.url });
  fake.replies.push(
    ...(apiKeyEcho ? [reply.error(500, `upstream refused the key ${apiKeyEcho}`)] : []),
    reply.toolCalls([{ name: 'balance', arguments: { account: SECRETS.toolArgument } }]),
    reply.toolCalls([{ name: 'handoff', arguments: { to: 'closer', message: SECRETS.handoffMessage } }]),
    reply.text(SECRETS.answer),
  );
  return new Team([
    defineAgent({ id: 'teller', instructions: SECRETS.instructions, model, tools: [balance] }),
    defineAgent({ id: 'closer', description: 'Closes accounts', instructions: 'Close accounts.', model }),
  ]);
}

async function runBankChain(codec: PayloadCodecOptions, apiKey = 'sk-unused', echoKey = false) {
  const providers = { openai: new OpenAIProvider({ apiKey }) };
  return withCodec(
    server.env,
    bankTeam(echoKey ? apiKey : undefined),
    codec,
    async (baton, client) => {
      const run = await baton.start('teller', SECRETS.prompt, { retry: fastRetry });
      const result = await run.result();
      return { result, raw: await rawChainBytes(client, run.workflowId), audit: await baton.audit(run.workflowId) };
    },
    providers,
  );
}

describe('encrypted payloads', () => {
  it('keep every prompt, answer, tool argument, result and error out of the raw history, and the audit reads them', async () => {
    const plain = await runBankChain({});
    // The search finds what is there: without encryption, everything is in the bytes.
    expect(found(plain.raw, Object.values(SECRETS))).toEqual(Object.values(SECRETS));

    const encrypted = await runBankChain({ encryptionKeys: [encryptionKey('k1')] });
    expect(encrypted.result).toMatchObject({ output: SECRETS.answer, finalAgent: 'closer' });
    expect(found(encrypted.raw, Object.values(SECRETS))).toEqual([]);
    expect(encrypted.raw.includes(Buffer.from('binary/encrypted'))).toBe(true);

    const { audit } = encrypted;
    expect(audit.input?.input).toBe(SECRETS.prompt);
    expect(audit.team?.agents.teller?.instructions).toBe(SECRETS.instructions);
    const toolCall = audit.events.find((e) => e.kind === 'tool_call');
    expect(toolCall).toMatchObject({
      tool: 'balance',
      arguments: JSON.stringify({ account: SECRETS.toolArgument }),
      result: `${SECRETS.toolResult} on ${SECRETS.toolArgument}`,
    });
    expect(toolCall?.kind === 'tool_call' && toolCall.execution?.attempts).toBe(2);
    expect(audit.handoffs.map((h) => h.message)).toEqual([SECRETS.handoffMessage]);
    expect(audit.result?.output).toBe(SECRETS.answer);
  });

  it('compress and then encrypt a chain with long payloads', async () => {
    const { result, raw, audit } = await runBankChain({
      compress: true,
      minBytes: 64,
      encryptionKeys: [encryptionKey('k1')],
    });
    expect(result.output).toBe(SECRETS.answer);
    expect(found(raw, Object.values(SECRETS))).toEqual([]);
    expect(raw.includes(Buffer.from('binary/gzip'))).toBe(false);
    expect(audit.handoffs[0]?.message).toBe(SECRETS.handoffMessage);
  });

  it("keep a failed chain's error encrypted in history, and the client still gets it whole", async () => {
    const failing = defineTool({
      name: 'balance',
      description: 'Balance of an account',
      parameters: z.object({ account: z.string() }),
      execute: ({ account }) => {
        throw new Error(`${SECRETS.toolError} for ${account}`);
      },
    });
    const team = new Team([
      defineAgent({
        id: 'teller',
        instructions: SECRETS.instructions,
        model: scripted([{ toolCalls: [{ name: 'balance', arguments: { account: SECRETS.toolArgument } }] }]),
        tools: [failing],
      }),
    ]);
    const { error, raw } = await withCodec(
      server.env,
      team,
      { encryptionKeys: [encryptionKey('k1')] },
      async (baton, client) => {
        const run = await baton.start('teller', SECRETS.prompt, { retry: { ...fastRetry, maximumAttempts: 2 } });
        return { error: await run.result().catch((e: unknown) => e), raw: await rawChainBytes(client, run.workflowId) };
      },
    );
    expect(error).toBeInstanceOf(ToolExecutionError);
    expect((error as ToolExecutionError).message).toContain(`${SECRETS.toolError} for ${SECRETS.toolArgument}`);
    expect(found(raw, Object.values(SECRETS))).toEqual([]);
    expect(found(raw, ['ToolExecutionError'])).toEqual(['ToolExecutionError']);
  });
});

describe('the OpenAI API key', () => {
  const modes: [string, PayloadCodecOptions][] = [
    ['plain', {}],
    ['compressed', { compress: true, minBytes: 64 }],
    ['encrypted', { encryptionKeys: [encryptionKey('k1')] }],
  ];

  it.each(modes)('never reaches history (%s), even when the server echoes it in an error', async (_mode, codec) => {
    const apiKey = `sk-test-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
    const { result, raw, audit } = await runBankChain(codec, apiKey, true);
    expect(result.output).toBe(SECRETS.answer);
    // The key was used, and the server's echo of it was what the first attempt failed with.
    expect(fake.requests[0]?.authorization).toBe(`Bearer ${apiKey}`);
    expect(fake.requests).toHaveLength(4);
    expect(audit.events.find((e) => e.kind === 'model_turn')).toMatchObject({ execution: { attempts: 2 } });
    expect(found(raw, [apiKey, apiKey.slice(3)])).toEqual([]);
  });

  it('is replaced in the recorded failure, which still says what happened', async () => {
    const apiKey = `sk-test-${Math.random().toString(36).slice(2)}`;
    const { raw } = await runBankChain({}, apiKey, true);
    expect(found(raw, ['upstream refused the key [API key]'])).toHaveLength(1);
  });
});
