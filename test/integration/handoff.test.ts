/**
 * A chain of handoffs on a real server and a real worker: its result, search attributes,
 * self-handoffs, listeners, turns with several handoffs or tools, plain-JSON starts and queries.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, MaxHandoffsExceededError, Team, ToolError } from '../../src';
import { BatonAgent, BatonHandoffs, BatonStatusAttribute, WorkflowType, type HandoffRecord } from '../../src/workflow';
import { activitiesInHistory, handoffsInHistory } from '../helpers/history';
import { recordingScripted } from '../helpers/models';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { scriptedAgent as agent } from '../helpers/agents';

const server = useTemporalServer();

const path = (chain: HandoffRecord[]) => chain.map((h) => `${h.from}>${h.to}`);

describe('handoffRun on a real server', () => {
  it('hands off from researcher to writer and returns output, final agent, chain, usage and workflow id', async () => {
    const { calls, providers } = recordingScripted();
    const team = new Team([
      agent('researcher', [{ handoff: { to: 'writer', message: 'Qubits hold superpositions.' } }]),
      agent('writer', [{ text: 'An article about qubits.' }]),
    ]);
    const result = await withWorker(
      server.env,
      team,
      (baton) => baton.run('researcher', 'Write about quantum computing'),
      { providers },
    );

    expect(result.output).toBe('An article about qubits.');
    expect(result.finalAgent).toBe('writer');
    expect(result.workflowId).toMatch(/^baton-researcher-/);
    expect(result.handoffChain).toHaveLength(1);
    expect(result.handoffChain[0]).toMatchObject({
      from: 'researcher',
      to: 'writer',
      message: 'Qubits hold superpositions.',
      turn: 1,
    });
    expect(Date.parse(result.handoffChain[0]!.timestamp)).toBeGreaterThan(Date.now() - 60_000);
    expect(result.usage).toMatchObject({ modelCalls: 2, toolCalls: 0 });
    expect(result.usage.totalTokens).toBe(result.usage.inputTokens + result.usage.outputTokens);

    // The writer starts from the handoff message with its own instructions, and sees the handoff tool.
    expect(calls[1]?.messages).toEqual([
      { role: 'system', content: 'You are writer.' },
      { role: 'user', content: 'Qubits hold superpositions.' },
    ]);
    expect(calls[0]?.tools.map((t) => t.name)).toEqual(['handoff']);
    expect(calls[0]?.tools[0]?.parameters).toMatchObject({ properties: { to: { enum: ['writer'] } } });
  });

  it('runs a three-agent chain a → b → c and keeps the search attributes current', async () => {
    const team = new Team([
      agent('a', [{ handoff: { to: 'b', message: 'to b' } }]),
      agent('b', [{ handoff: { to: 'c', message: 'to c' } }]),
      agent('c', [{ text: 'done by c' }]),
    ]);
    const result = await withWorker(server.env, team, async (baton) => {
      const run = await baton.start('a', 'start');
      return { ...(await run.result()), description: await run.handle.describe() };
    });
    expect(path(result.handoffChain)).toEqual(['a>b', 'b>c']);
    expect(result.handoffChain.map((h) => h.turn)).toEqual([1, 2]);
    expect(result.output).toBe('done by c');
    const attrs = result.description.typedSearchAttributes;
    expect(attrs.get(BatonAgent)).toBe('c');
    expect(attrs.get(BatonStatusAttribute)).toBe('completed');
    expect(attrs.get(BatonHandoffs)).toBe(2);
  });

  it('gives a single agent no handoff tool', async () => {
    const { calls, providers } = recordingScripted();
    const team = new Team([agent('solo', [{ text: 'alone' }])]);
    const result = await withWorker(server.env, team, (baton) => baton.run('solo', 'hi'), { providers });
    expect(result).toMatchObject({ output: 'alone', finalAgent: 'solo', handoffChain: [] });
    expect(calls[0]?.tools).toEqual([]);
  });

  it('accepts a self-handoff: restarts the agent with the message, records it and counts it', async () => {
    const { calls, providers } = recordingScripted();
    const team = new Team([
      agent('a', [{ handoff: { to: 'a', message: 'try another way' } }, { text: 'second try worked' }], {
        handoffs: ['a', 'b'],
      }),
      agent('b', []),
    ]);
    const result = await withWorker(server.env, team, (baton) => baton.run('a', 'first input'), { providers });
    expect(result.output).toBe('second try worked');
    expect(path(result.handoffChain)).toEqual(['a>a']);
    expect(calls[0]?.tools[0]?.parameters).toMatchObject({ properties: { to: { enum: ['a', 'b'] } } });
    expect(calls[1]?.messages).toEqual([
      { role: 'system', content: 'You are a.' },
      { role: 'user', content: 'try another way' },
    ]);

    const looping = new Team([
      agent(
        'a',
        Array.from({ length: 3 }, () => ({ handoff: { to: 'a', message: 'again' } })),
        { handoffs: ['a'] },
      ),
    ]);
    const err = await withWorker(server.env, looping, (baton) =>
      baton.run('a', 'go', { maxHandoffs: 2, loopWindow: 0 }).catch((e: unknown) => e),
    );
    expect(err).toBeInstanceOf(MaxHandoffsExceededError);
  });

  it('calls agent_handoff listeners after each handoff with (context, agent, handoff)', async () => {
    const seen: { workflowId: string; index: number; agent: string; handoff: HandoffRecord }[] = [];
    const team = new Team([
      agent('a', [{ handoff: { to: 'b', message: 'm1' } }]),
      agent('b', [{ handoff: { to: 'c', message: 'm2' } }]),
      agent('c', [{ text: 'end' }]),
    ]);
    const result = await withWorker(server.env, team, (baton) => baton.run('a', 'go'), {
      hooks: {
        agent_handoff: [
          (ctx, ag, h) => void seen.push({ workflowId: ctx.workflowId, index: ctx.index, agent: ag.id, handoff: h }),
        ],
      },
    });
    expect(seen.map((s) => [s.index, s.agent, s.handoff.to])).toEqual([
      [1, 'a', 'b'],
      [2, 'b', 'c'],
    ]);
    expect(seen.every((s) => s.workflowId === result.workflowId)).toBe(true);
    expect(seen.map((s) => s.handoff)).toEqual(result.handoffChain);
  });

  it('executes only the first of several handoffs in one turn and answers every other one', async () => {
    const team = new Team([
      agent('a', [
        {
          toolCalls: [
            { name: 'handoff', arguments: { to: 'b', message: 'first' } },
            { name: 'handoff', arguments: { to: 'c', message: 'second' } },
          ],
        },
      ]),
      agent('b', [{ text: 'b answered' }]),
      agent('c', []),
    ]);
    const { result, recorded } = await withWorker(server.env, team, async (baton) => {
      const run = await baton.start('a', 'go');
      return { result: await run.result(), recorded: await handoffsInHistory(run.handle) };
    });
    expect(result.finalAgent).toBe('b');
    expect(path(result.handoffChain)).toEqual(['a>b']);
    expect(recorded).toHaveLength(1);
    expect(recorded[0]?.entry).toMatchObject({ index: 1, handoff: result.handoffChain[0] });
    const answers = recorded[0]!.entry.toolResults;
    expect(answers.map((r) => r.toolCallId)).toEqual(['call_a_1_1', 'call_a_1_2']);
    expect(answers[0]?.content).toBe('Handed off to b.');
    expect(answers[1]?.content).toMatch(/^Ignored: only one handoff per turn/);
  });

  it('runs the other tools of a handoff turn first and keeps their results', async () => {
    const executed: string[] = [];
    const lookup = defineTool({
      name: 'lookup',
      description: 'Look something up',
      parameters: z.object({ q: z.string() }),
      execute: ({ q }) => {
        executed.push(q);
        return { found: q.toUpperCase() };
      },
    });
    const team = new Team([
      agent(
        'a',
        [
          {
            toolCalls: [
              { name: 'handoff', arguments: { to: 'b', message: 'over' } },
              { name: 'lookup', arguments: { q: 'x' } },
            ],
          },
        ],
        {
          tools: [lookup],
        },
      ),
      agent('b', [{ text: 'done' }]),
    ]);
    const { result, history, recorded } = await withWorker(server.env, team, async (baton) => {
      const run = await baton.start('a', 'go');
      return {
        result: await run.result(),
        history: await activitiesInHistory(run.handle),
        recorded: await handoffsInHistory(run.handle),
      };
    });
    expect(result.output).toBe('done');
    expect(executed).toEqual(['x']);
    expect(result.usage.toolCalls).toBe(1);
    expect(history.find((a) => a.name === 'runTool')!.eventId).toBeLessThan(recorded[0]!.eventId);
    const answers = recorded[0]!.entry.toolResults;
    expect(answers).toEqual([
      { toolCallId: 'call_a_1_1', name: 'handoff', content: 'Handed off to b.' },
      { toolCallId: 'call_a_1_2', name: 'lookup', content: '{"found":"X"}' },
    ]);
  });

  it('sends tool errors, bad arguments and unknown tools back to the model', async () => {
    const { calls, providers } = recordingScripted();
    const find = defineTool({
      name: 'find',
      description: 'Find',
      parameters: z.object({ id: z.string() }),
      execute: ({ id }) => {
        throw new ToolError(`nothing called ${id}`);
      },
    });
    const team = new Team([
      agent(
        'a',
        [
          {
            toolCalls: [
              { name: 'find', arguments: { id: 'x' } },
              { name: 'find', arguments: { id: 7 } },
              { name: 'nope', arguments: {} },
            ],
          },
          { text: 'gave up politely' },
        ],
        { tools: [find] },
      ),
    ]);
    const result = await withWorker(server.env, team, (baton) => baton.run('a', 'go'), { providers });
    expect(result.output).toBe('gave up politely');
    const answers = calls[1]?.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    expect(answers).toEqual([
      'Error: nothing called x',
      expect.stringMatching(/^Error: invalid arguments for find: id: /),
      'Error: unknown tool "nope". Available tools: find',
    ]);
  });

  it('starts from plain JSON, the way another service or the temporal CLI would', async () => {
    const team = new Team([agent('a', [{ handoff: { to: 'b', message: 'json' } }]), agent('b', [{ text: 'plain' }])]);
    await withWorker(server.env, team, async (_baton, taskQueue) => {
      const result = await server.env.client.workflow.execute('handoffRun', {
        taskQueue,
        workflowId: `plain-json-${Date.now()}`,
        args: [JSON.parse('{"agent":"a","input":"hello","options":{"maxHandoffs":5}}')],
      });
      expect(result).toMatchObject({
        output: 'plain',
        finalAgent: 'b',
        handoffChain: [{ from: 'a', to: 'b', message: 'json' }],
      });
      expect(WorkflowType.HANDOFF_RUN).toBe('handoffRun');

      const bad = await server.env.client.workflow
        .execute('handoffRun', {
          taskQueue,
          workflowId: `bad-json-${Date.now()}`,
          args: [{ agent: 5, options: { maxHandoffs: -1, colour: 'red' } }],
        })
        .catch((e: unknown) => e);
      expect(bad).toBeInstanceOf(WorkflowFailedError);
      const cause = (bad as WorkflowFailedError).cause as { type?: string; message: string };
      expect(cause.type).toBe('InvalidRunInputError');
      expect(cause.message).toMatch(
        /"agent" must be a non-empty string.*"input" must be a string.*unknown option "colour".*"maxHandoffs" must be an integer >= 0/,
      );
    });
  });

  it('answers chain and status queries while running', async () => {
    const team = new Team([
      agent('a', [{ handoff: { to: 'b', message: 'over' } }]),
      agent('b', [{ text: 'slow answer', delayMs: 1500 }]),
    ]);
    await withWorker(server.env, team, async (baton) => {
      const run = await baton.start('a', 'go');
      let status = await run.status();
      for (let i = 0; i < 50 && status.handoffs === 0; i++) status = await run.status();
      expect(status).toMatchObject({ status: 'running', currentAgent: 'b', handoffs: 1 });
      expect(path(await run.chain())).toEqual(['a>b']);
      await run.result();
      expect((await run.status()).status).toBe('completed');
    });
  });
});
