/**
 * The archive worker: keeps every closed chain and conversation past the namespace's retention.
 * It polls the archive's own task queue (`baton-archive`), runs the `auditArchiver` workflow (one per
 * archive, started here under a fixed id if it is not running) and its activities, which write each
 * closed chain's signed export to a directory or an S3-compatible bucket and stream its events to
 * a SIEM. Chains never wait for it. See docs/compliance.md.
 */
import { Client, WorkflowIdConflictPolicy, type WorkflowHandle } from '@temporalio/client';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createArchiveActivities } from '../../activities/archive';
import { ChainArchiver } from '../audit/archive/archiver';
import { type ArchiveExportOptions } from '../audit/archive/build';
import { openArchive, openSiemSink } from '../audit/archive/location';
import { personalDataProblems } from '../audit/archive/personalData';
import type { ArchiveStore } from '../audit/archive/store';
import type { SiemSink } from '../audit/siem/sink';
import { temporalConfig } from '../client/connect';
import { ARCHIVER_WORKFLOW_TYPE, type ArchiverInput, DEFAULT_ARCHIVE_TASK_QUEUE } from '../common/archive';
import { UserError } from '../common/errors';
import { batonDataConverter } from '../payloads/codec';
import { codecOptionsFromEnv, type PayloadCodecOptions } from '../payloads/keys';
import { workflowBundle } from './bundle';
import { connectClient } from '../client/connect';

/** How the archiver runs: which chains, how often it looks, and from when. */
export type ArchiverSettings = Omit<ArchiverInput, 'cursor' | 'totals' | 'runs'>;

/** Options of {@link createArchiveWorker}. */
export interface ArchiveWorkerOptions extends ArchiveExportOptions {
  /** Where exports are kept: a directory, `s3://bucket/prefix`, or a store of your own. */
  archive: string | ArchiveStore;
  /** Where every audit event is streamed: a file of JSON lines, an `http(s)://` endpoint, or a sink of your own. @default none */
  siem?: string | SiemSink;
  /** Your own connection. @default one made as `createWorker` makes it (`TEMPORAL_ADDRESS`, the `temporal.toml` profile) */
  connection?: NativeConnection;
  /** @default the profile's namespace or `TEMPORAL_NAMESPACE`, else "default" */
  namespace?: string;
  /** The client that reads the chains' histories. @default one on the connection's address with baton's payload codecs */
  client?: Client;
  /** How payloads are encrypted and compressed (to read histories). @default the environment's (see `codecOptionsFromEnv`) */
  codec?: PayloadCodecOptions;
  /** The archive's task queue; one archiver runs per task queue. @default "baton-archive" */
  taskQueue?: string;
  /** The archiver's settings, used when this worker starts it. */
  archiver?: ArchiverSettings;
  /** Start the archiver when it is not running. @default true */
  startArchiver?: boolean;
  /** Worker tuning passed to Temporal's `Worker.create`. */
  worker?: Partial<
    Omit<WorkerOptions, 'connection' | 'namespace' | 'taskQueue' | 'activities' | 'workflowBundle' | 'workflowsPath'>
  >;
}

/** The archiver's workflow id for the archive task queue `taskQueue`. */
export function archiverWorkflowId(taskQueue = DEFAULT_ARCHIVE_TASK_QUEUE): string {
  return `baton-audit-archiver:${taskQueue}`;
}

/**
 * A worker that archives every closed chain and conversation (and streams its events to a SIEM).
 * Run one or more beside the team's workers; `run()` it like any worker.
 * @example
 * const worker = await createArchiveWorker({ archive: 's3://audit/baton', siem: 'https://siem.example/ingest', signer: decisionSignerFromFile('audit.jwk') });
 * await worker.run();
 */
export async function createArchiveWorker(options: ArchiveWorkerOptions): Promise<Worker> {
  const problems = options.personalData ? personalDataProblems(options.personalData) : [];
  if (problems.length > 0) throw new UserError(`createArchiveWorker: ${problems.join('; ')}`);
  const store = typeof options.archive === 'string' ? openArchive(options.archive) : options.archive;
  const siem = typeof options.siem === 'string' ? openSiemSink(options.siem) : options.siem;
  const config = temporalConfig();
  const namespace = options.namespace ?? config.namespace;
  const dataConverter = batonDataConverter(options.codec ?? codecOptionsFromEnv());
  const connection = options.connection ?? (await NativeConnection.connect(config.connectionOptions));
  const client =
    options.client ??
    new Client({ connection: await connectClient(config.connectionOptions), namespace, dataConverter });
  const taskQueue = options.taskQueue ?? DEFAULT_ARCHIVE_TASK_QUEUE;
  const archiver = new ChainArchiver({ client, store, ...(siem ? { siem } : {}), ...pick(options) });
  const worker = await Worker.create({
    // As createWorker's: a dead archive worker's archiver and attempts move on within seconds.
    maxHeartbeatThrottleInterval: '1 second',
    stickyQueueScheduleToStartTimeout: '1 second',
    ...options.worker,
    connection,
    namespace,
    taskQueue,
    dataConverter,
    workflowBundle: await workflowBundle(
      dataConverter.failureConverterPath ? { failureConverterPath: dataConverter.failureConverterPath } : {},
    ),
    activities: createArchiveActivities(archiver),
  });
  if (options.startArchiver !== false) await startArchiver(client, { taskQueue, ...options.archiver });
  return worker;
}

/**
 * Start the archiver of the archive task queue `taskQueue` unless it is running (its id is fixed,
 * so every archive worker may call this); answers its handle.
 */
export async function startArchiver(
  client: Client,
  options: ArchiverSettings & { taskQueue?: string } = {},
): Promise<WorkflowHandle> {
  const { taskQueue = DEFAULT_ARCHIVE_TASK_QUEUE, ...settings } = options;
  return client.workflow.start(ARCHIVER_WORKFLOW_TYPE, {
    workflowId: archiverWorkflowId(taskQueue),
    taskQueue,
    args: [settings satisfies ArchiverInput],
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
  });
}

function pick(o: ArchiveExportOptions): ArchiveExportOptions {
  return {
    ...(o.signer ? { signer: o.signer } : {}),
    ...(o.personalData ? { personalData: o.personalData } : {}),
    ...(o.tenantField ? { tenantField: o.tenantField } : {}),
  };
}
