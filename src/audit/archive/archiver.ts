/**
 * What the archive worker's activities do (activities/archive.ts calls it): list the chains and
 * conversations visibility shows closed since the archiver's cursor, and archive one: its export
 * written once under its key, its events streamed to the SIEM once. Every step can be retried
 * from the start: the export's key depends only on the chain, the write leaves an object that is
 * there, and the stream is receipted.
 */
import type { Client } from '@temporalio/client';
import {
  ARCHIVED_WORKFLOW_TYPES,
  type ArchivedChain,
  behindCursor,
  type ClosedExecution,
  executionName,
  type ListClosedInput,
} from '../../common/archive';
import type { AuditExport } from '../export';
import { type SiemSink } from '../siem/sink';
import { siemEvents } from '../siem/events';
import { archivedExport, type ArchiveExportOptions } from './build';
import { archiveKey, keyIn, NONE, RECEIPTS, TOMBSTONES } from './keys';
import type { ArchiveStore } from './store';

/** The folder of records of chains whose history was gone before they were archived. */
export const LOST = 'lost';

/** Version tag of a record of a chain lost before it was archived. */
export const LOST_SCHEMA = 'baton.archive-lost/v1';

/** Options of {@link ChainArchiver}. */
export interface ChainArchiverOptions extends ArchiveExportOptions {
  /** Reads the chains' histories (with the deployment's payload codecs). */
  client: Client;
  store: ArchiveStore;
  /** Where each chain's events are streamed; none: no stream. */
  siem?: SiemSink;
}

const STATUS: Record<number, string> = { 2: 'completed', 3: 'failed', 4: 'cancelled', 5: 'terminated', 7: 'timed_out' };

/** Lists closed chains and archives them. */
export class ChainArchiver {
  constructor(private readonly options: ChainArchiverOptions) {}

  /** The closed chains and conversations after `cursor`, oldest first, at most `limit`. */
  async listClosed(input: ListClosedInput): Promise<ClosedExecution[]> {
    const { client } = this.options;
    const types = ARCHIVED_WORKFLOW_TYPES.map((t) => `WorkflowType = "${t}"`).join(' OR ');
    const queue = input.chainsOn !== undefined ? ` AND TaskQueue = "${input.chainsOn.replace(/["\\]/g, '\\$&')}"` : '';
    const query = `(${types}) AND ExecutionStatus != "Running" AND ExecutionStatus != "ContinuedAsNew" AND CloseTime >= "${input.cursor.closedAt}"${queue}`;
    const settled = new Date(Date.now() - input.settleMs).toISOString();
    const found: ClosedExecution[] = [];
    let nextPageToken: Uint8Array | undefined;
    do {
      const page = await client.workflowService.listWorkflowExecutions({
        namespace: client.options.namespace,
        query,
        pageSize: 1000,
        nextPageToken,
      });
      for (const e of page.executions ?? []) {
        const status = STATUS[e.status ?? 0];
        // A specialist's chain is archived inside its parent's export.
        if (!status || e.parentExecution?.workflowId || !e.execution?.workflowId || !e.execution.runId || !e.closeTime)
          continue;
        const closedAt = new Date(
          Number(e.closeTime.seconds ?? 0) * 1000 + Math.floor((e.closeTime.nanos ?? 0) / 1e6),
        ).toISOString();
        const closed: ClosedExecution = {
          workflowId: e.execution.workflowId,
          runId: e.execution.runId,
          workflowType: e.type?.name ?? '',
          closedAt,
          status,
          ...(e.taskQueue ? { taskQueue: e.taskQueue } : {}),
        };
        if (closedAt <= settled && !behindCursor(input.cursor, closed)) found.push(closed);
      }
      nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
    } while (nextPageToken);
    found.sort((a, b) =>
      a.closedAt < b.closedAt ? -1 : a.closedAt > b.closedAt ? 1 : executionName(a) < executionName(b) ? -1 : 1,
    );
    return found.slice(0, input.limit);
  }

  /** Archive `closed`: its export once under its key, its events to the SIEM once. */
  async archive(closed: ClosedExecution): Promise<ArchivedChain> {
    const { store } = this.options;
    let made;
    try {
      made = await archivedExport(this.options.client, closed, this.options);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      return this.lost(closed, err as Error);
    }
    if ((await store.get(keyIn(TOMBSTONES, made.key))) !== undefined)
      return { key: made.key, outcome: 'erased', events: 0, streamed: 0 };
    const outcome = await store.putIfAbsent(made.key, `${JSON.stringify(made.doc, null, 2)}\n`);
    // The stream tells what the archive keeps: the object written first, whichever attempt wrote it.
    const doc =
      outcome === 'written' ? made.doc : (JSON.parse((await store.get(made.key)) ?? 'null') as AuditExport | null);
    if (!doc) throw new Error(`${made.key} was there a moment ago and is gone: was it erased meanwhile?`);
    const streamed = await this.stream(made.key, doc, closed);
    return { key: made.key, outcome, events: doc.events.length, head: doc.head, streamed };
  }

  private async stream(key: string, doc: AuditExport, closed: ClosedExecution): Promise<number> {
    const { siem, store, client } = this.options;
    if (!siem) return 0;
    const receipt = keyIn(RECEIPTS, key);
    if ((await store.get(receipt)) !== undefined) return 0;
    const events = siemEvents(doc, {
      namespace: client.options.namespace,
      archiveKey: key,
      closedAt: closed.closedAt,
      status: closed.status,
    });
    const written = await siem.write(key, events);
    await store.putIfAbsent(
      receipt,
      `${JSON.stringify({ to: siem.location, events: events.length, at: new Date().toISOString() })}\n`,
    );
    return written;
  }

  /** A record that the chain closed and its history was gone before it was archived (retention shorter than an outage). */
  private async lost(closed: ClosedExecution, err: Error): Promise<ArchivedChain> {
    const key = archiveKey(
      {
        tenant: NONE,
        team: NONE,
        date: closed.closedAt.slice(0, 10),
        workflowId: closed.workflowId,
        runId: closed.runId,
      },
      LOST,
    );
    const record = {
      schema: LOST_SCHEMA,
      ...closed,
      noticedAt: new Date().toISOString(),
      reason: err.message.slice(0, 500),
    };
    const outcome = await this.options.store.putIfAbsent(key, `${JSON.stringify(record, null, 2)}\n`);
    return { key, outcome: outcome === 'written' ? 'lost' : 'exists', events: 0, streamed: 0 };
  }
}

/** Whether `err` says the workflow (its history) is not there. */
function isNotFound(err: unknown): boolean {
  const e = err as { code?: number; name?: string; cause?: unknown };
  if (e?.code === 5 || e?.name === 'WorkflowNotFoundError' || e?.name === 'NotFoundError') return true;
  return e?.cause !== undefined && e.cause !== err && isNotFound(e.cause);
}
