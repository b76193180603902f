/**
 * Every run baton starts carries its workflow task timeout (src/common/taskTimeout.ts): a chain, the
 * specialist it delegates to, each run a continue-as-new starts, a replay's run and a conversation.
 * A worker killed inside a workflow task holds its chain for that long, not Temporal's default 10 s.
 */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { defineAgent, delegate, scripted, Team } from '../../src';
import type { ScriptedStep } from '../../src/workflow';
import { scriptedAgent as agent } from '../helpers/agents';
import { useTemporalServer, withWorker } from '../helpers/temporal';

const server = useTemporalServer();
const EventType = temporal.api.enums.v1.EventType;

/** The workflow task timeout each run of `workflowId` was started with, in seconds, oldest run first. */
async function taskTimeouts(client: Client, workflowId: string): Promise<number[]> {
  const runs: { runId: string; start: number }[] = [];
  for await (const wf of client.workflow.list({ query: `WorkflowId = "${workflowId}"` }))
    runs.push({ runId: wf.runId, start: wf.startTime.getTime() });
  runs.sort((a, b) => a.start - b.start);
  const timeouts: number[] = [];
  for (const { runId } of runs) {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
    timeouts.push(Number(started?.workflowTaskTimeout?.seconds ?? NaN));
  }
  return timeouts;
}

describe('the workflow task timeout', () => {
  it('is 8 s on a chain, its specialist, every run a continue-as-new starts, a replay and a conversation', async () => {
    const hops = 10;
    const steps = (to: string): ScriptedStep[] =>
      Array.from({ length: hops / 2 }, (_, i) => ({ handoff: { to, message: `hop ${i}` } }));
    const team = new Team([
      defineAgent({
        id: 'a',
        instructions: 'A',
        model: scripted([
          {
            toolCalls: [{ name: 'delegate', arguments: { to: 'orders', task: 'look up order 42', reason: 'orders' } }],
          },
          ...steps('b'),
        ]),
        handoffs: [delegate('orders'), 'b'],
      }),
      agent('b', [...steps('a').slice(0, -1), { text: 'done' }], { handoffs: ['a'] }),
      agent('orders', [{ text: 'order 42: delivered' }]),
    ]);
    await withWorker(server.env, team, async (baton) => {
      // Nine handoffs; a limit of eight fails the chain at its last, and a replay with a higher limit finishes it.
      const run = await baton.start('a', 'go', { maxHandoffs: hops - 2, continueAsNewAfterEvents: 40, loopWindow: 0 });
      expect(await run.result().catch((e: Error) => e.name)).toBe('MaxHandoffsExceededError');
      const runs = await taskTimeouts(server.env.client, run.workflowId);
      expect(runs.length).toBeGreaterThan(2);
      expect(runs).toEqual(runs.map(() => 8));
      expect(await taskTimeouts(server.env.client, `${run.workflowId}/orders-1.1`)).toEqual([8]);

      const replayed = await baton.replay(run.workflowId, { overrides: { options: { maxHandoffs: hops - 1 } } });
      expect(replayed.mechanism).toBe('resume');
      expect((await baton.getRun(run.workflowId).result()).output).toBe('done');
      // The first handoffs are in runs before a continue-as-new: a reset cannot reach them, and says so.
      await expect(baton.replay(run.workflowId, { fromHandoff: 1 })).rejects.toThrow(
        /in the runs before it, which a replay cannot reset/,
      );
      const all = await taskTimeouts(server.env.client, run.workflowId);
      expect(all.length).toBeGreaterThan(runs.length);
      expect(all).toEqual(all.map(() => 8));

      const chat = baton.conversation('orders');
      await chat.send('where is order 42?');
      expect(await taskTimeouts(server.env.client, chat.id)).toEqual([8]);
    });
  });

  it('lets a local model call run past it: the worker keeps the task alive, and the chain goes on', async () => {
    const team = new Team([
      agent('a', [{ handoff: { to: 'b', message: 'slow one next' } }], { handoffs: ['b'] }),
      agent('b', [{ text: 'took its time', delayMs: 10_000 }]),
    ]);
    await withWorker(server.env, team, async (baton) => {
      const run = await baton.start('a', 'go', { modelActivity: 'local' });
      expect((await run.result()).output).toBe('took its time');
      const history = await run.handle.fetchHistory();
      const types = (history.events ?? []).map((e) => EventType[e.eventType ?? 0]);
      expect(
        types.filter((t) => t === 'EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT' || t === 'EVENT_TYPE_WORKFLOW_TASK_FAILED'),
      ).toEqual([]);
      // At 6.4 s (80% of the timeout) into the 10 s call the worker completed the task it held, and a new one waited for the call.
      expect(types.filter((t) => t === 'EVENT_TYPE_WORKFLOW_TASK_COMPLETED').length).toBe(2);
    });
  });
});
