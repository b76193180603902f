/**
 * The eval worker: the candidate team's worker on the eval's task queue, whose model and tool
 * calls are answered from each case's record where the record has them, and which runs the eval's
 * own workflows and activities.
 */
import type { Client } from '@temporalio/client';
import type { NativeConnection, Worker } from '@temporalio/worker';
import type { Team } from '../agents/team';
import type { McpWorkerOptions } from '../mcp/tools';
import type { ModelProviders } from '../models/provider';
import { createWorker } from '../worker';
import { createEvalActivities } from './activities';
import { answersFromRecords } from './replay';
import { RecordingStore } from './store';

/** Options of {@link createEvalWorker}. */
export interface EvalWorkerOptions {
  /** The candidate team. */
  team: Team;
  /** Reads the recorded chains (and their codecs' payloads). */
  client: Client;
  connection: NativeConnection;
  /** The eval's task queue (`evalTaskQueue(evalId)`). */
  taskQueue: string;
  /** Model providers beside `openai` and `scripted`, for the candidate's agents and the judge. */
  providers?: ModelProviders;
  /** The candidate's MCP servers (connected when the worker starts, as any worker's). */
  mcp?: McpWorkerOptions;
}

/** A worker that runs an eval's cases with the candidate team. Call `run()` or `runUntil()` on it. */
export async function createEvalWorker(options: EvalWorkerOptions): Promise<Worker> {
  const store = new RecordingStore(options.client);
  return createWorker({
    team: options.team,
    connection: options.connection,
    namespace: options.client.options.namespace,
    taskQueue: options.taskQueue,
    ...(options.providers ? { providers: options.providers } : {}),
    ...(options.mcp ? { mcp: options.mcp } : {}),
    // An eval's chains are no production traffic: they stay out of the worker's metrics and traces.
    metrics: false,
    tracing: false,
    deployment: false,
    activities: createEvalActivities({
      client: options.client,
      store,
      ...(options.providers ? { providers: options.providers } : {}),
    }),
    worker: { interceptors: { activity: [answersFromRecords(store)] } },
  });
}
