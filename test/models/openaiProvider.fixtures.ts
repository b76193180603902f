/**
 * What the OpenAI provider tests share: a model call as a worker receives it, a call context like
 * the activity's that records heartbeats, and the `ApplicationFailure` a call ends with.
 */
import { ApplicationFailure } from '@temporalio/common';
import { expect } from 'vitest';
import { openai } from '../../src';
import type { CallModelInput, OpenAIModelSettings } from '../../src/common/model';
import type { OpenAICallProgress } from '../../src/models/openaiAttempts';
import type { ModelCallContext } from '../../src/models/provider';

const lookupTool = {
  name: 'lookup',
  description: 'Look up a topic',
  parameters: { type: 'object', properties: { topic: { type: 'string' } } },
};

/** A call of agent `solo` to the model at `baseURL`, with the `lookup` tool when `withTools`. */
export function providerInput(baseURL: string, settings: OpenAIModelSettings = {}, withTools = false): CallModelInput {
  return {
    agentId: 'solo',
    // Specs built directly: the provider's own settings, as a worker receives them.
    model: openai('gpt-fake', { baseURL, ...settings }),
    messages: [
      { role: 'system', content: 'Answer briefly.' },
      { role: 'user', content: 'hi' },
    ],
    tools: withTools ? [lookupTool] : [],
    callIndex: 0,
  };
}

/** A call context like the activity's, recording heartbeats. */
export function callContext(previousHeartbeat?: unknown) {
  const controller = new AbortController();
  const heartbeats: OpenAICallProgress[] = [];
  const context: ModelCallContext = {
    attempt: previousHeartbeat === undefined ? 1 : 2,
    signal: controller.signal,
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    heartbeat: (details) => heartbeats.push(details as OpenAICallProgress),
    previousHeartbeat,
  };
  return { context, controller, heartbeats, last: () => heartbeats.at(-1) };
}

/** The failure `promise` rejects with, which must be an `ApplicationFailure`. */
export async function failure(promise: Promise<unknown>): Promise<ApplicationFailure> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApplicationFailure);
  return err as ApplicationFailure;
}
