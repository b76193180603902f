/**
 * The web chat's worker: the team, its model calls writing their text word by word. Started in the
 * launcher's own process (`main.ts`), or as a process of its own:
 *
 *   TEMPORAL_ADDRESS=127.0.0.1:7233 BATON_STREAMS_URL=redis://127.0.0.1:6379 node -r tsx/cjs examples/web-chat/worker.ts
 *
 * A worker in a process of its own shares text with the service through Redis (`BATON_STREAMS_URL`);
 * without it, each answer shows whole when its model call ends. Prints `ready` once it polls.
 * Environment: `TEMPORAL_ADDRESS`, `BATON_TASK_QUEUE` (default `baton`), `BATON_STREAMS_URL`,
 * `BATON_EXAMPLE_WORD_MS` (the scripted model's pause before each word, default 60).
 */
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { createWorker } from 'baton-agents';
import { team } from './team';
import { TypingScripted } from './typing';

/** Options of {@link createWebChatWorker}. */
export interface WebChatWorkerOptions {
  connection?: NativeConnection;
  /** @default 'baton' */
  taskQueue?: string;
  /** The scripted model's pause before each word. @default 60 */
  wordMs?: number;
}

/** A worker for the web chat's team. */
export function createWebChatWorker(options: WebChatWorkerOptions = {}): Promise<Worker> {
  return createWorker({
    team,
    ...(options.connection ? { connection: options.connection } : {}),
    ...(options.taskQueue ? { taskQueue: options.taskQueue } : {}),
    // Each word heartbeats, so a call whose worker is lost is retried within the heartbeat timeout (3 s).
    providers: { scripted: new TypingScripted(options.wordMs) },
  });
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233' });
  const wordMs = process.env.BATON_EXAMPLE_WORD_MS ? Number(process.env.BATON_EXAMPLE_WORD_MS) : undefined;
  const worker = await createWebChatWorker({
    connection,
    taskQueue: process.env.BATON_TASK_QUEUE || 'baton',
    ...(wordMs !== undefined ? { wordMs } : {}),
  });
  process.stdout.write('ready\n');
  await worker.run();
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
