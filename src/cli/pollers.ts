import type { Client } from '@temporalio/client';
import { DEFAULT_TASK_QUEUE } from '../common/messages';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import type { Print } from './print';

/** How long after starting a chain the CLI looks for a worker: time for a worker started alongside to poll. */
export const WORKER_CHECK_DELAY_MS = 3_000;

/**
 * A poller last seen longer ago than this belongs to a worker that is gone: a live worker's long
 * polls return within about a minute and it polls again at once, while the server lists pollers
 * for minutes after they stop.
 */
const LIVE_POLLER_MS = 90_000;

/** How many workers poll `taskQueue` for workflow tasks now. */
export async function workflowPollers(client: Client, taskQueue: string): Promise<number> {
  const { pollers } = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  const now = Date.now();
  return (pollers ?? []).filter((p) => now - (optionalTsToMs(p.lastAccessTime) ?? now) <= LIVE_POLLER_MS).length;
}

/**
 * A few seconds from now, say on `warn` when no worker polls `taskQueue`, and what to do about it.
 * Returns a function that cancels the check (call it once the chain is done).
 */
export function warnWhenNoWorker(client: Client, taskQueue: string, workflowId: string, warn: Print): () => void {
  let cancelled = false;
  const timer = setTimeout(() => {
    workflowPollers(client, taskQueue).then(
      (count) => {
        if (count > 0 || cancelled) return;
        const queue = taskQueue === DEFAULT_TASK_QUEUE ? '' : ` --task-queue ${taskQueue}`;
        warn(
          [
            `warning: no worker is polling task queue "${taskQueue}", so chain ${workflowId} waits until one does.`,
            `  start one:  npx baton worker --team <module>${queue}`,
            `  or pass --team <module> to serve the team in this process.`,
          ].join('\n'),
        );
      },
      // Without the right to describe task queues the check says nothing rather than something wrong.
      () => undefined,
    );
  }, WORKER_CHECK_DELAY_MS);
  timer.unref();
  return () => {
    cancelled = true;
    clearTimeout(timer);
  };
}
