/**
 * A drill worker: a child process serving the drill team, so that the drill can SIGKILL it. It
 * tells its parent (over the IPC channel) when it is ready and when each activity attempt starts
 * and ends, which is how the drill aims its kills and measures recovery.
 *
 * Environment: `TEMPORAL_ADDRESS`, `DRILL_TASK_QUEUE`, `DRILL_IDENTITY`, `DRILL_EFFECTS`.
 */
import { Context } from '@temporalio/activity';
import { DefaultLogger, Runtime, type ActivityInterceptorsFactory } from '@temporalio/worker';
import { createWorker } from '../src';
import { HANDOFF_TOOL_NAME } from '../src/agents';
import type { ModelResponse, RunToolInput } from '../src/workflow';
import { team } from './team';

/** What a drill worker tells its parent. */
export type WorkerReport =
  | { type: 'ready'; identity: string }
  | {
      type: 'start' | 'end';
      workflowId: string;
      activityId: string;
      activity: string;
      tool?: string;
      attempt: number;
      at: number;
      ok?: boolean;
      handoff?: boolean;
    };

function report(message: WorkerReport): void {
  process.send?.(message);
}

const reportActivities: ActivityInterceptorsFactory = () => ({
  inbound: {
    async execute(input, next) {
      const info = Context.current().info;
      const tool = info.activityType === 'runTool' ? (input.args[0] as RunToolInput | undefined)?.call.name : undefined;
      const base = {
        workflowId: info.workflowExecution?.workflowId ?? '',
        activityId: info.activityId,
        activity: info.activityType,
        ...(tool ? { tool } : {}),
        attempt: info.attempt,
      };
      report({ type: 'start', ...base, at: Date.now() });
      try {
        const result = await next(input);
        const handoff =
          info.activityType === 'callModel' &&
          (result as ModelResponse).toolCalls.some((c) => c.name === HANDOFF_TOOL_NAME);
        report({ type: 'end', ...base, at: Date.now(), ok: true, handoff });
        return result;
      } catch (err) {
        report({ type: 'end', ...base, at: Date.now(), ok: false });
        throw err;
      }
    },
  },
});

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const identity = process.env.DRILL_IDENTITY ?? `drill-worker@${process.pid}`;
  const worker = await createWorker({
    team,
    taskQueue: process.env.DRILL_TASK_QUEUE,
    worker: { identity, interceptors: { activity: [reportActivities] } },
  });
  report({ type: 'ready', identity });
  await worker.run();
}

// The parent going away (a finished or interrupted drill) ends its workers too.
process.on('disconnect', () => process.exit(0));

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
