/**
 * A worker process for the chat tests that SIGKILL it mid-answer: the whole worker (workflows and
 * activities) for a one-agent team whose model writes its answer word by word, its text published
 * to Redis so the service (in the test process) follows it. Prints `ready` once it polls.
 *
 * Environment: `TEMPORAL_ADDRESS`, `CHAT_WORKER_QUEUE`, `BATON_STREAMS_URL`.
 */
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { createWorker } from '../../../src';
import { streamsFromEnv } from '../../../src/streams/env';
import { killTeam } from './killTeam';
import { WritingScripted } from './writing';

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS });
  const worker = await createWorker({
    team: killTeam(),
    connection,
    taskQueue: process.env.CHAT_WORKER_QUEUE!,
    providers: { scripted: new WritingScripted(120) },
    streams: streamsFromEnv(),
    worker: { maxHeartbeatThrottleInterval: 100 },
  });
  process.stdout.write('ready\n');
  await worker.run();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
