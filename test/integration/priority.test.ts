/**
 * Task priority and fairness on a real dev server (one task queue partition, so its order is the
 * queue's; fairness on): a worker with one activity slot and a backlog of chains takes their model
 * calls by priority, then fairly between tenants; a chain another client started with the option
 * only in its input still has its calls and its specialist dispatched with it; a fairness key
 * Temporal would refuse fails the start at once instead of every workflow task.
 */
import { Context } from '@temporalio/activity';
import { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import {
  Baton,
  type BatonRun,
  defineAgent,
  delegate,
  InvalidRunInputError,
  model,
  Team,
  type ModelProvider,
} from '../../src';
import { type RunPriority, WorkflowType } from '../../src/workflow';
import { createWorker } from '../../src/worker';
import { scriptedAgent } from '../helpers/agents';
import { taskQueue, useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const server = useTemporalServer({
  dynamicConfig: [
    'matching.numTaskqueueReadPartitions=1',
    'matching.numTaskqueueWritePartitions=1',
    'matching.useNewMatcher=true',
    'matching.enableFairness=true',
  ],
});

/** A model that answers at once after `delayMs`, noting which chain called it, in the order the worker ran the calls. */
function recorder(delayMs: number): { order: string[]; provider: ModelProvider } {
  const order: string[] = [];
  return {
    order,
    provider: {
      async call(_input, context) {
        order.push(Context.current().info.workflowExecution?.workflowId ?? '');
        await context.sleep(delayMs);
        return { content: 'done', toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, model: 'recorder' };
      },
    },
  };
}

const team = new Team([defineAgent({ id: 'solo', instructions: 'You are solo.', model: model('recorder', 'm') })]);

/**
 * Start `chains` (id → priority) in that order and let a worker that runs no activities schedule
 * their first call, so all of them wait in the queue; then serve them with one activity slot. The
 * order their model calls ran in.
 */
async function backlogOrder(chains: [string, RunPriority | undefined][]): Promise<string[]> {
  const queue = taskQueue();
  const baton = new Baton({ client: server.env.client, taskQueue: queue });
  const runs: BatonRun[] = [];
  for (const [id, priority] of chains)
    runs.push(await baton.start('solo', 'go', { workflowId: `${queue}-${id}`, ...(priority ? { priority } : {}) }));
  const { order, provider } = recorder(100);
  const options = {
    team,
    connection: server.env.nativeConnection,
    taskQueue: queue,
    providers: { recorder: provider },
  };
  const scheduler = await createWorker({ ...options, worker: { enableNonLocalActivities: false } });
  // Until every chain's first call waits in the queue itself (history records it a moment before matching holds it).
  await scheduler.runUntil(
    waitFor(
      () => activityBacklog(queue),
      (n) => n >= chains.length,
    ),
  );
  // One slot and no eager dispatch: every activity waits in the queue, which orders it.
  const worker = await createWorker({
    ...options,
    worker: { maxConcurrentActivityTaskExecutions: 1, maxEagerActivityReservationsPerWorkflowTask: 0 },
  });
  await worker.runUntil(Promise.all(runs.map((r) => r.result())));
  return order.map((id) => id.slice(queue.length + 1));
}

/** How many activity tasks wait in `queue`, as the server counts them. */
async function activityBacklog(queue: string): Promise<number> {
  const { stats } = await server.env.connection.workflowService.describeTaskQueue({
    namespace: 'default',
    taskQueue: { name: queue },
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
    reportStats: true,
  });
  return Number(stats?.approximateBacklogCount ?? 0);
}

describe('task priority and fairness', () => {
  it('run model calls of a backlog by priority, then fairly between tenants, where the queue alone would take them in start order', async () => {
    // Started batch first, one tenant's burst, another tenant's two, an interactive chain last: the queue alone would run them in this order.
    const order = await backlogOrder([
      ['batch-1', { priorityKey: 5 }],
      ['batch-2', { priorityKey: 5 }],
      ...[1, 2, 3, 4].map((n): [string, RunPriority] => [`a-${n}`, { fairnessKey: 'tenant-a' }]),
      ['b-1', { fairnessKey: 'tenant-b' }],
      ['b-2', { fairnessKey: 'tenant-b', fairnessWeight: 2 }],
      ['live', { priorityKey: 1 }],
    ]);
    const at = (prefix: string) => order.flatMap((id, i) => (id.startsWith(prefix) ? [i] : []));
    // Priority across levels (the server allows small deviations, so no exact order is asked of it):
    expect(at('live')[0]).toBeLessThan(3);
    // The low-priority calls run last; the very first poll may be handed the first task written
    // before the matcher has read the rest of the backlog (seen on a loaded machine), never a later one.
    expect(at('batch').at(-1)).toBe(8);
    expect(at('batch').filter((i) => i !== 0 && i < 7)).toEqual([]);
    // and fairness within one: tenant b's chains do not wait for all of tenant a's.
    expect(Math.min(...at('b-'))).toBeLessThan(Math.max(...at('a-')));
    expect(at('b-').filter((i) => i <= 4).length).toBeGreaterThan(0);
  }, 120_000);

  it('dispatches the calls and specialists of a chain another client started with the option only in its input', async () => {
    const delegating = new Team([
      scriptedAgent(
        'lead',
        [
          { toolCalls: [{ name: 'delegate', arguments: { to: 'helper', task: 'look it up', reason: 'it knows' } }] },
          { text: 'all done' },
        ],
        { handoffs: [delegate('helper')] },
      ),
      scriptedAgent('helper', [{ text: 'found it' }]),
    ]);
    const queue = taskQueue();
    const priority = { priorityKey: 2, fairnessKey: 'tenant-c', fairnessWeight: 3 };
    const worker = await createWorker({ team: delegating, connection: server.env.nativeConnection, taskQueue: queue });
    await worker.runUntil(async () => {
      // As the `temporal` CLI or another SDK would: no workflow priority, the option in the input.
      const handle = await server.env.client.workflow.start(WorkflowType.HANDOFF_RUN, {
        taskQueue: queue,
        workflowId: `${queue}-lead`,
        args: [{ agent: 'lead', input: 'go', options: { priority } }],
      });
      expect((await handle.result()).output).toBe('all done');
      const events = (await handle.fetchHistory()).events ?? [];
      const modelCalls = events.filter(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel',
      );
      expect(modelCalls.map((e) => e.activityTaskScheduledEventAttributes?.priority)).toEqual([
        expect.objectContaining(priority),
        expect.objectContaining(priority),
      ]);
      const child = events.find(
        (e) => e.startChildWorkflowExecutionInitiatedEventAttributes,
      )?.startChildWorkflowExecutionInitiatedEventAttributes;
      expect(child?.priority).toEqual(expect.objectContaining(priority));
      const childEvents =
        (await server.env.client.workflow.getHandle(child?.workflowId ?? '').fetchHistory()).events ?? [];
      const childCall = childEvents.find(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel',
      );
      expect(childCall?.activityTaskScheduledEventAttributes?.priority).toEqual(expect.objectContaining(priority));

      // A conversation: its workflow and each message's calls.
      const chat = new Baton({ client: server.env.client, taskQueue: queue }).conversation('helper', {
        options: { priority: { priorityKey: 1, fairnessKey: 'tenant-d' } },
      });
      expect((await chat.send('hello')).output).toBe('found it');
      expect((await chat.handle.describe()).raw.workflowExecutionInfo?.priority).toMatchObject({
        priorityKey: 1,
        fairnessKey: 'tenant-d',
      });
      const chatEvents = (await chat.handle.fetchHistory()).events ?? [];
      const chatCall = chatEvents.find(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel',
      );
      expect(chatCall?.activityTaskScheduledEventAttributes?.priority).toMatchObject({
        priorityKey: 1,
        fairnessKey: 'tenant-d',
      });

      // A fairness key Temporal refuses would fail every workflow task that schedules a call with it: the start fails instead.
      const refused = server.env.client.workflow.start(WorkflowType.HANDOFF_RUN, {
        taskQueue: queue,
        workflowId: `${queue}-bad`,
        args: [{ agent: 'lead', input: 'go', options: { priority: { fairnessKey: 'x'.repeat(65), priorityKey: 0 } } }],
      });
      const failure = await (await refused).result().catch((e: unknown) => e);
      const cause = (failure as { cause?: { type?: string; message?: string } }).cause;
      expect(cause?.type).toBe(InvalidRunInputError.name);
      expect(cause?.message).toContain(
        '"priority.priorityKey" must be an integer >= 1 and <= 100, got 0 (1 goes first)',
      );
      expect(cause?.message).toContain(
        '"priority.fairnessKey" is 65 bytes; Temporal takes fairness keys of at most 64 bytes',
      );
    });
  }, 60_000);
});
