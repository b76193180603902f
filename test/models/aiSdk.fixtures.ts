/**
 * What the AI SDK tests share: the AI SDK's OpenAI-compatible provider pointed at the test server
 * (its requests mended as docs/models.md shows), the teams that run on it, and what a chain's
 * history and the test server's requests say of each call.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { WorkflowHandle } from '@temporalio/client';
import { z } from 'zod';
import { aiSdk, defineAgent, defineTool, Team } from '../../src';
import type { FakeRequest } from '../helpers/openaiServer';

/** Retries quick enough for a test: 100 ms, then 200 ms. */
export const fastRetry = { initialInterval: '100 ms', maximumInterval: '200 ms' };
/**
 * The AI SDK's provider for OpenAI-compatible servers, pointed at the test server at `baseURL`. It
 * sends `content: null` beside tool calls, which llama-cpp-python (and the test server) refuse: the
 * request is mended as docs/models.md shows.
 */
const compatible = (baseURL: string, mended = true) =>
  createOpenAICompatible({
    name: 'fake',
    baseURL,
    apiKey: 'sk-test',
    includeUsage: true,
    ...(mended ? { transformRequestBody: withoutNullContent } : {}),
  });

function withoutNullContent(body: Record<string, unknown>): Record<string, unknown> {
  const messages = body.messages as { content?: unknown }[];
  return { ...body, messages: messages.map((m) => (m.content === null ? { ...m, content: '' } : m)) };
}
/**
 * gpt-4o-mini of the test server at `baseURL`, through the AI SDK (its requests mended unless
 * `mended` is false). It has a price in baton's default table, so the chain's cost is known.
 */
export const gptAt = (baseURL: string, mended = true) => compatible(baseURL, mended).chatModel('gpt-4o-mini');

/** `researcher` (with a `lookup` tool) and `writer`, both on `gpt`. */
export function researchTeam(gpt: ReturnType<typeof gptAt>) {
  const lookup = defineTool({
    name: 'lookup',
    description: 'Look up a topic',
    parameters: z.object({ topic: z.string() }),
    execute: ({ topic }) => `notes on ${topic}`,
  });
  const m = aiSdk(gpt, { temperature: 0 });
  return new Team([
    defineAgent({ id: 'researcher', instructions: 'Research, then hand off.', model: m, tools: [lookup] }),
    defineAgent({ id: 'writer', description: 'Writes articles', instructions: 'Write.', model: m }),
  ]);
}

/** One agent, `solo`, on `gpt` with `settings`. */
export const soloTeam = (gpt: ReturnType<typeof gptAt>, settings: Parameters<typeof aiSdk>[1] = {}) =>
  new Team([defineAgent({ id: 'solo', instructions: 'Answer briefly.', model: aiSdk(gpt, settings) })]);

/** What history recorded of each retried call: the attempt that ended it and the failure of the attempt before. */
export async function retriedCalls(handle: WorkflowHandle) {
  const events = (await handle.fetchHistory()).events ?? [];
  return events.flatMap((e) => {
    const failure = e.activityTaskStartedEventAttributes?.lastFailure;
    return failure
      ? [
          {
            attempt: e.activityTaskStartedEventAttributes!.attempt,
            type: failure.applicationFailureInfo?.type ?? failure.message,
          },
        ]
      : [];
  });
}

/** The roles of the messages a request to the test server sent. */
export const roles = (r: FakeRequest | undefined) => (r?.body.messages ?? []).map((m) => m.role);
