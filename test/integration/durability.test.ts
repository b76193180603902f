import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Baton, createWorker, defineTool, Team, ToolExecutionError } from '../../src';
import type { HandoffRecord } from '../../src/workflow';
import { activitiesInHistory, handoffsInHistory } from '../helpers/history';
import { taskQueue, useTemporalServer, withWorker } from '../helpers/temporal';
import { scriptedAgent as agent } from '../helpers/agents';

const server = useTemporalServer();
const fastRetry = { initialInterval: '100 ms', maximumInterval: '500 ms' };

describe('durability', () => {
  it('retries a model call that fails twice, completes, and the history shows the attempts', async () => {
    const team = new Team([
      agent('a', [{ handoff: { to: 'b', message: 'go' }, failAttempts: 2 }]),
      agent('b', [{ text: 'made it' }]),
    ]);
    const { result, history } = await withWorker(server.env, team, async (baton) => {
      const run = await baton.start('a', 'hello', { retry: fastRetry });
      return { result: await run.result(), history: await activitiesInHistory(run.handle) };
    });
    expect(result.output).toBe('made it');
    const modelCalls = history.filter((a) => a.name === 'callModel');
    expect(modelCalls.map((a) => [a.summary, a.attempt])).toEqual([
      ['a', 3],
      ['b', 1],
    ]);
    expect(result.usage.modelCalls).toBe(2);
  });

  it('survives a worker stopped and restarted mid-chain, recording no handoff twice', async () => {
    const queue = taskQueue();
    const team = new Team([
      agent('a', [{ handoff: { to: 'b', message: 'to b' } }]),
      agent('b', [{ handoff: { to: 'c', message: 'to c' }, delayMs: 1500 }]),
      agent('c', [{ text: 'finished after restart' }]),
    ]);
    const firstWorkerSaw: HandoffRecord[] = [];
    let firstHandoff!: () => void;
    const gate = new Promise<void>((resolve) => (firstHandoff = resolve));
    const first = await createWorker({
      team,
      connection: server.env.nativeConnection,
      taskQueue: queue,
      hooks: { agent_handoff: [(_c, _a, h) => void (firstWorkerSaw.push(h), firstHandoff())] },
    });
    const firstRunning = first.run();
    const baton = new Baton({ client: server.env.client, taskQueue: queue });
    const run = await baton.start('a', 'go', { retry: fastRetry });
    await gate;
    first.shutdown(); // b's model call is in flight: the worker leaves it behind
    await firstRunning;

    const secondWorkerSaw: HandoffRecord[] = [];
    const second = await createWorker({
      team,
      connection: server.env.nativeConnection,
      taskQueue: queue,
      hooks: { agent_handoff: [(_c, _a, h) => void secondWorkerSaw.push(h)] },
    });
    const result = await second.runUntil(run.result());

    expect(result.output).toBe('finished after restart');
    expect(result.handoffChain.map((h) => `${h.from}>${h.to}`)).toEqual(['a>b', 'b>c']);
    expect(firstWorkerSaw.map((h) => h.to)).toEqual(['b']);
    expect(secondWorkerSaw.map((h) => h.to)).toEqual(['c']);
    const history = await activitiesInHistory(run.handle);
    expect((await handoffsInHistory(run.handle)).map((h) => h.entry.index)).toEqual([1, 2]);
    expect(history.filter((a) => a.name === 'runHandoffHooks').map((a) => a.summary)).toEqual(['a → b', 'b → c']);
    expect(history.filter((a) => a.name === 'callModel').map((a) => a.summary)).toEqual(['a', 'b', 'c']);
  });

  it('retries a tool that fails transiently and reuses its idempotency key', async () => {
    const keys: string[] = [];
    const flaky = defineTool({
      name: 'charge',
      description: 'Charge a card',
      parameters: z.object({ cents: z.number() }),
      execute: ({ cents }, { idempotencyKey, attempt }) => {
        keys.push(idempotencyKey);
        if (attempt < 3) throw new Error('payment gateway timeout');
        return `charged ${cents}`;
      },
    });
    const team = new Team([
      agent('a', [{ toolCalls: [{ name: 'charge', arguments: { cents: 500 } }] }, { text: 'paid' }], {
        tools: [flaky],
      }),
    ]);
    const { result, history } = await withWorker(server.env, team, async (baton) => {
      const run = await baton.start('a', 'pay', { retry: fastRetry });
      return { result: await run.result(), history: await activitiesInHistory(run.handle) };
    });
    expect(result.output).toBe('paid');
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
    // From workflow-deterministic values (workflow, agent, turn, call index, the call itself), never the provider's call id.
    expect(keys[0]).toMatch(new RegExp(`^${result.workflowId}:a:1\\.1:[0-9a-f]{8}$`));
    expect(history.find((a) => a.name === 'runTool')?.attempt).toBe(3);
  });

  it('fails the run with ToolExecutionError when a tool fails non-retryably, without retrying it', async () => {
    let executions = 0;
    const declined = defineTool({
      name: 'charge',
      description: 'Charge a card',
      parameters: z.object({}),
      execute: () => {
        executions++;
        throw ApplicationFailure.nonRetryable('card declined', 'CardDeclined');
      },
    });
    const team = new Team([agent('a', [{ toolCalls: [{ name: 'charge', arguments: {} }] }], { tools: [declined] })]);
    const err = await withWorker(server.env, team, (baton) =>
      baton.run('a', 'pay', { retry: fastRetry }).catch((e: unknown) => e),
    );
    expect(err).toBeInstanceOf(ToolExecutionError);
    expect(err).toMatchObject({ agent: 'a', tool: 'charge', reason: 'card declined' });
    expect(executions).toBe(1);
  });
});
