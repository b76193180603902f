/**
 * A worker process running only baton's activities for the lost-worker tests' team, so that the
 * tests can SIGKILL it in the middle of a call (the chains' workflows run in the test process). It
 * prints `ready`, then `start <activity type> <attempt>` as each attempt starts.
 *
 * Environment: `TEMPORAL_ADDRESS`, `LOST_WORKER_QUEUE`, and the team's (see ./team.ts).
 */
import { Context } from '@temporalio/activity';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createActivities } from '../../../activities';
import { batonDataConverter } from '../../../src/payloads/codec';
import { team } from './team';

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS });
  const worker = await Worker.create({
    connection,
    taskQueue: process.env.LOST_WORKER_QUEUE!,
    activities: createActivities({ team }),
    dataConverter: batonDataConverter({}),
    // Heartbeats reach the server at once, so a kill soon after a call's progress does not lose it.
    maxHeartbeatThrottleInterval: 100,
    interceptors: {
      activity: [
        () => ({
          inbound: {
            execute: (input, next) => {
              const { activityType, attempt } = Context.current().info;
              process.stdout.write(`start ${activityType} ${attempt}\n`);
              return next(input);
            },
          },
        }),
      ],
    },
  });
  process.stdout.write('ready\n');
  await worker.run();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
