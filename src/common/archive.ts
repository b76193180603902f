/**
 * The contracts of the audit archiver: one long-running `auditArchiver` workflow per archive (a
 * fixed workflow id) that lists the chains and conversations closed since its cursor, has each
 * archived by an activity (its export written under a deterministic key, its events streamed to a
 * SIEM), advances the cursor only after that, and continues as new carrying it. Operators read it
 * with the `archiverStatus` query and wake it with the `archiveNow` signal.
 *
 * Workflow-safe: no I/O.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';

/** The workflow type of the archiver. */
export const ARCHIVER_WORKFLOW_TYPE = 'auditArchiver';

/** The task queue archive workers poll unless told otherwise. */
export const DEFAULT_ARCHIVE_TASK_QUEUE = 'baton-archive';

/** The workflow types the archiver archives: chains and conversations, not their specialists (a parent's export holds them). */
export const ARCHIVED_WORKFLOW_TYPES = ['handoffRun', 'conversation'] as const;

/**
 * Where the archiver is in the stream of closed executions: everything that closed before
 * `closedAt` is done, and of those that closed at `closedAt` (to the millisecond), the ones in `done`.
 */
export interface ArchiveCursor {
  /** ISO 8601, UTC, millisecond precision. */
  closedAt: string;
  /** `<workflowId> <runId>` of the executions closed at `closedAt` already archived. */
  done: string[];
}

/** One closed chain or conversation, as visibility lists it. */
export interface ClosedExecution {
  workflowId: string;
  runId: string;
  workflowType: string;
  /** ISO 8601, UTC, millisecond precision. */
  closedAt: string;
  /** How the last run ended: completed, failed, cancelled, terminated or timed_out. */
  status: string;
  taskQueue?: string;
}

/** Input of the `listClosedChains` activity. */
export interface ListClosedInput {
  cursor: ArchiveCursor;
  /** Only the chains of this task queue. */
  chainsOn?: string;
  /** Leave out chains closed less than this long ago (ms): visibility may not show all of that moment yet. */
  settleMs: number;
  limit: number;
}

/** Input of the `auditArchiver` workflow. */
export interface ArchiverInput {
  /** Archive only the chains of this task queue. @default every chain of the namespace */
  chainsOn?: string;
  /** Close times before this are skipped (ISO 8601). @default the beginning: every closed chain visibility still holds */
  since?: string;
  /** How long to wait between looks when nothing is left to archive, in ms. @default 30000 */
  pollMs?: number;
  /**
   * How long after its close a chain is archived, in ms: visibility is written after the close,
   * and a cursor past a chain visibility had not shown yet would skip it. @default 10000
   */
  settleMs?: number;
  /** Chains listed per look. @default 50 */
  batch?: number;
  /** How soon an archiving attempt whose worker died starts again elsewhere, in ms. @default 20000 */
  heartbeatTimeoutMs?: number;
  /**
   * Events a run's history holds before it continues as new. Every look writes history, chains or
   * none; a long history is replayed whole by a worker that takes the archiver over (a restart), and
   * one too long to replay within a workflow task's timeout stops the archiver. @default 1000
   */
  eventsPerRun?: number;
  /** Carried by continue-as-new. */
  cursor?: ArchiveCursor;
  /** Carried by continue-as-new. */
  totals?: ArchiverTotals;
  /** Carried by continue-as-new: the runs before this one. */
  runs?: number;
}

/** What the archiver has done since it first started. */
export interface ArchiverTotals {
  archived: number;
  /** Chains found already archived (a retry after a lost worker, or a second archiver). */
  alreadyArchived: number;
  /** Chains whose history was gone before they were archived: a record of the loss is archived instead. */
  lost: number;
  /** Chains met again after their archived copy was erased for a data subject: left erased. */
  erased: number;
  /** Events written to the SIEM stream. */
  streamed: number;
}

/** What one archiving activity did. */
export interface ArchivedChain {
  key: string;
  /** `written`: archived now; `exists`: it was archived before; `lost`: its history was gone; `erased`: a tombstone says it was deleted for a data subject. */
  outcome: 'written' | 'exists' | 'lost' | 'erased';
  events: number;
  head?: string;
  /** Events written to the SIEM stream for it (0 when they had been). */
  streamed: number;
}

/** The archive worker's activities (activities/archive.ts), as the archiver calls them. */
export interface ArchiveActivities {
  /** The closed chains and conversations after the cursor, oldest first. */
  listClosedChains(input: ListClosedInput): Promise<ClosedExecution[]>;
  /** Archive one closed chain: its export once under its key, its events to the SIEM once. */
  archiveClosedChain(closed: ClosedExecution): Promise<ArchivedChain>;
}

/** What the `archiverStatus` query answers. */
export interface ArchiverStatus {
  cursor: ArchiveCursor;
  totals: ArchiverTotals;
  /** The last chain archived, and what became of it. */
  last?: ClosedExecution & ArchivedChain;
  /** The run's place in the archiver's life: how many runs it has continued as new. */
  runs: number;
}

/** Query: where the archiver is. */
export const archiverStatusQuery = defineQuery<ArchiverStatus>('archiverStatus');

/** Signal: look for closed chains now instead of at the next poll. */
export const archiveNowSignal = defineSignal('archiveNow');

/** The cursor before anything: every closed chain visibility still holds. */
export function initialCursor(since?: string): ArchiveCursor {
  return { closedAt: since ?? new Date(0).toISOString(), done: [] };
}

/** The name of an execution in a cursor's `done`. */
export function executionName(e: Pick<ClosedExecution, 'workflowId' | 'runId'>): string {
  return `${e.workflowId} ${e.runId}`;
}

/** The cursor after `e` is archived: executions are archived in (close time, name) order. */
export function advanceCursor(cursor: ArchiveCursor, e: ClosedExecution): ArchiveCursor {
  if (e.closedAt > cursor.closedAt) return { closedAt: e.closedAt, done: [executionName(e)] };
  return { closedAt: cursor.closedAt, done: [...cursor.done, executionName(e)] };
}

/** Whether `e` is already behind `cursor`. */
export function behindCursor(cursor: ArchiveCursor, e: ClosedExecution): boolean {
  return e.closedAt < cursor.closedAt || (e.closedAt === cursor.closedAt && cursor.done.includes(executionName(e)));
}
