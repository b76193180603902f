/**
 * What the provider fault tests run: two fake OpenAI servers (one that parses tool-call arguments,
 * as vLLM does) emptied before each test, the teams that call them, a chain run under scripted
 * replies with what history recorded of its retries, and a worker in a process of its own.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool, openai, OpenAIProvider, Team } from '../../src';
import type { AuditChain } from '../../src/audit';
import type { ModelTurnEvent } from '../../src/audit/types';
import type { Baton } from '../../src/client/baton';
import type { DevServer } from '../../src/devserver/server';
import { startOpenAIServer, type FakeReply } from '../helpers/openaiServer';
import { withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { typescriptCode } from '../helpers/typescript';

/** A fake OpenAI server. */
export type FakeServer = Awaited<ReturnType<typeof startOpenAIServer>>;

/** The fake servers of a test file: started before its tests, emptied before each, closed after. */
export function useFakeServers(): { readonly fake: FakeServer; readonly vllmLike: FakeServer } {
  const servers = {} as { fake: FakeServer; vllmLike: FakeServer };
  beforeAll(async () => {
    servers.fake = await startOpenAIServer();
    servers.vllmLike = await startOpenAIServer({ parsesToolArguments: true });
  });
  afterAll(async () => {
    await servers.fake.close();
    await servers.vllmLike.close();
  });
  beforeEach(() => {
    for (const server of [servers.fake, servers.vllmLike]) {
      server.requests.length = 0;
      server.replies.length = 0;
    }
  });
  return servers;
}

/** Resolves once `server` has been sent `n` requests, waiting `timeoutMs` at most (waitFor's own limit unless told). */
export async function untilAsked(server: FakeServer, n: number, timeoutMs?: number): Promise<void> {
  await waitFor(
    async () => server.requests.length,
    (count) => count === n,
    timeoutMs,
  );
}

/** A retry policy whose own backoff (100-200 ms) is told apart from the waits a fault asks for. */
export const fastRetry = { initialInterval: '100 ms', maximumInterval: '200 ms' };
const notStreaming = { providers: { openai: new OpenAIProvider({ stream: false }) } };
const model = (server: FakeServer, settings: { timeoutMs?: number } = {}) =>
  openai('gpt-fake', { baseURL: server.url, temperature: 0, ...settings });

/** Researcher (with a lookup tool) hands off to writer. */
export function researchTeam(server: FakeServer) {
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

/** One agent, solo, that answers briefly from `server`. */
export const soloTeam = (server: FakeServer, settings: { timeoutMs?: number } = {}) =>
  new Team([defineAgent({ id: 'solo', instructions: 'Answer briefly.', model: model(server, settings) })]);

/** What history recorded of each retried call: the attempt that ended it and the failure before it. */
async function retriedCalls(handle: WorkflowHandle) {
  const events = (await handle.fetchHistory()).events ?? [];
  return events.flatMap((e) => {
    const started = e.activityTaskStartedEventAttributes;
    const failure = started?.lastFailure;
    return failure
      ? [
          {
            attempt: started.attempt,
            type: failure.applicationFailureInfo?.type ?? failure.message,
            message: failure.message ?? '',
          },
        ]
      : [];
  });
}

/** The model turns of `audit`. */
export const modelTurns = (audit: AuditChain) =>
  audit.events.filter((e): e is AuditChain['events'][number] & ModelTurnEvent => e.kind === 'model_turn');

/** How a chain runs under scripted replies: on which server, streamed or not, with which start options. */
export type RunUnderOptions = { streaming?: boolean; server?: FakeServer; start?: Parameters<Baton['start']>[2] };

/**
 * Runs a chain of `team`'s first agent on the dev server `temporal` holds, its model answered by
 * `replies` from `options.server` (`servers.fake` unless told); resolves to its outcome (a result
 * or the error), the run, the Baton, its retried calls and its audit.
 */
export function runnerOn(temporal: { readonly env: DevServer }, servers: { readonly fake: FakeServer }) {
  return async (team: Team, replies: FakeReply[], options: RunUnderOptions = {}) => {
    const server = options.server ?? servers.fake;
    server.replies.push(...replies);
    return withWorker(
      temporal.env,
      team,
      async (baton) => {
        const run = await baton.start(team.ids[0]!, 'go', { retry: fastRetry, ...options.start });
        const outcome = await run.result().catch((e: unknown) => e);
        return {
          outcome,
          run,
          baton,
          retried: await retriedCalls(run.handle),
          audit: await baton.audit(run.workflowId),
        };
      },
      options.streaming === false ? notStreaming : {},
    );
  };
}

/**
 * A worker for a solo team answered by `fakeUrl`, in a process of its own on `temporal`'s dev
 * server, so it can be frozen; resolves once it polls `queue`.
 */
export async function workerProcess(temporal: DevServer, fakeUrl: string, queue: string) {
  const code = `
    const { createWorker } = require('./src/worker');
    const { defineAgent, openai, Team } = require('./src');
    const team = new Team([defineAgent({ id: 'solo', instructions: 'Answer briefly.', model: openai('gpt-fake', { baseURL: process.env.FAKE_URL, temperature: 0 }) })]);
    // One activity slot: while its call hangs, this worker asks for no other.
    createWorker({ team, taskQueue: process.env.QUEUE, worker: { identity: 'frozen-worker', maxConcurrentActivityTaskExecutions: 1 } })
      .then((w) => { console.log('polling'); return w.run(); })
      .catch((e) => { console.error(e); process.exit(1); });`;
  const root = path.resolve(__dirname, '../..');
  const child = spawn(process.execPath, ['-e', typescriptCode(code)], {
    cwd: root,
    env: { ...process.env, FAKE_URL: fakeUrl, QUEUE: queue, TEMPORAL_ADDRESS: temporal.address },
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      output += c.toString();
      if (output.includes('polling')) resolve();
    });
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('exit', (code) => reject(new Error(`worker exited ${code}: ${output}`)));
  });
  return child;
}
