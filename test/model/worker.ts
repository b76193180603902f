/**
 * A worker process of the model-based harness, so the harness can SIGKILL it: it runs the Temporal
 * workers its parent asks for (a task queue, a version of the team, a Worker Deployment version or
 * none), answers model calls with the puppet (./puppet.ts), and reports every activity attempt.
 *
 * Environment: `TEMPORAL_ADDRESS`, `MODEL_EFFECTS`, `MODEL_IDENTITY`, and `BATON_STREAMS_URL` when
 * chains' text is streamed through Redis.
 */
import { Context } from '@temporalio/activity';
import {
  DefaultLogger,
  NativeConnection,
  Runtime,
  type ActivityInterceptorsFactory,
  type Worker,
} from '@temporalio/worker';
import { createWorker } from '../../src';
import type { FromWorker, ServedWorker, ToWorker } from './protocol';
import { aiSdkPuppetProvider } from './aiSdkPuppet';
import { answerCall, puppetProvider } from './puppet';
import { modelTeam } from './team';

function send(message: FromWorker): void {
  process.send?.(message);
}

const reportActivities: ActivityInterceptorsFactory = () => ({
  inbound: {
    async execute(input, next) {
      const info = Context.current().info;
      const base = {
        workflowId: info.workflowExecution?.workflowId ?? '',
        activityId: info.activityId,
        activity: info.activityType,
      };
      send({ type: 'activity', phase: 'start', ...base });
      try {
        const result = await next(input);
        send({ type: 'activity', phase: 'end', ...base });
        return result;
      } catch (err) {
        send({
          type: 'activity',
          phase: 'end',
          ...base,
          failure: (err as { type?: string }).type ?? (err as Error).name,
        });
        throw err;
      }
    },
  },
});

const running = new Map<string, { worker: Worker; done: Promise<void> }>();
let connection: NativeConnection | undefined;
let reconciling = Promise.resolve();

function nameOf(w: ServedWorker): string {
  return `${w.taskQueue}/${w.version}/${w.deployment ? `${w.deployment.name}.${w.deployment.buildId}` : '-'}${w.aiSdk ? '/ai-sdk' : ''}`;
}

/** Start the workers asked for and stop the others. */
async function serve(wanted: ServedWorker[]): Promise<void> {
  connection ??= await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS });
  const names = new Set(wanted.map(nameOf));
  await Promise.all(
    [...running.entries()]
      .filter(([name]) => !names.has(name))
      .map(async ([name, r]) => {
        running.delete(name);
        if (r.worker.getState() === 'RUNNING') r.worker.shutdown();
        await r.done.catch(() => undefined);
      }),
  );
  for (const w of wanted) {
    const name = nameOf(w);
    if (running.has(name)) continue;
    const identity = `${process.env.MODEL_IDENTITY ?? 'model'}:${w.version}`;
    // Two unversioned workers of one process on one task queue tell Temporal apart by build id; they stay unversioned.
    const unversioned = {
      workerDeploymentOptions: {
        useWorkerVersioning: false as const,
        version: { deploymentName: 'model', buildId: w.version },
      },
    };
    const worker = await createWorker({
      team: modelTeam(w.version),
      connection,
      taskQueue: w.taskQueue,
      providers: { puppet: w.aiSdk ? aiSdkPuppetProvider(send) : puppetProvider(send) },
      deployment: w.deployment ?? false,
      worker: { identity, interceptors: { activity: [reportActivities] }, ...(w.deployment ? {} : unversioned) },
    });
    const done = worker.run().catch((err: unknown) => {
      console.error(`worker ${name} stopped: ${String(err)}`);
      // A worker that gave up (the server was away too long) takes the process with it; the harness starts another.
      process.exit(3);
    });
    running.set(name, { worker, done });
  }
  send({ type: 'serving', taskQueues: wanted.map((w) => w.taskQueue) });
}

process.on('message', (m: ToWorker) => {
  if (m.type === 'answer') answerCall(m.key, m.answer);
  else if (m.type === 'serve')
    reconciling = reconciling
      .then(() => serve(m.workers))
      .catch((err: unknown) => {
        console.error(err);
        process.exit(2);
      });
});

// The harness going away ends its workers too.
process.on('disconnect', () => process.exit(0));

Runtime.install({ logger: new DefaultLogger('ERROR') });
send({ type: 'ready' });
