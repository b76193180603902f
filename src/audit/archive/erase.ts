/**
 * Erasing a chain's archived copy for a data subject (GDPR Art. 17) without touching any other
 * chain's proof: each archived export is a digest chain of its own (its first digest is made from
 * its own workflow id), so deleting one leaves every other verifying as before. What is deleted is
 * replaced by a tombstone under `tombstones/…` with the same tail: which chain, its head digest and
 * number of events (no content), when, why and on whose word; the archiver archives a chain with a
 * tombstone no more, and its stream receipt stays, so its events are not streamed again.
 */
import { type AuditExport } from '../export';
import { keyIn, TOMBSTONES } from './keys';
import { listArchive } from './read';
import type { ArchiveStore } from './store';

/** Version tag of a tombstone. */
export const TOMBSTONE_SCHEMA = 'baton.archive-tombstone/v1';

/** What a tombstone says. */
export interface Tombstone {
  schema: typeof TOMBSTONE_SCHEMA;
  /** The key the export was kept under. */
  key: string;
  workflowId: string;
  runId: string;
  /** The erased export's head digest and event count: whoever kept the head can tell the erased document was the one they knew. */
  head?: string;
  events?: number;
  erasedAt: string;
  reason: string;
  /** Who asked for the erasure. */
  by: string;
}

/** What an erasure did. */
export interface Erasure {
  tombstones: Tombstone[];
}

/**
 * Erase the archived exports of `workflowId` (every run of it archived): a tombstone is written
 * first (so an archiver that meets the chain again leaves it erased), then the export is deleted,
 * every version of it in a versioned bucket. Under S3 object lock in COMPLIANCE mode the delete is
 * refused until the retention ends; in GOVERNANCE mode it needs `bypassGovernanceRetention`.
 */
export async function eraseArchived(
  store: ArchiveStore,
  workflowId: string,
  request: { reason: string; by: string; now?: Date },
): Promise<Erasure> {
  if (request.reason.trim() === '' || request.by.trim() === '')
    throw new Error('an erasure needs a reason (e.g. "GDPR Art. 17 request 2026-114") and who asked for it');
  const entries = (await listArchive(store, { workflowId })).filter((e) => e.state === 'archived');
  if (entries.length === 0)
    throw new Error(
      `${store.location} holds no archived chain ${JSON.stringify(workflowId)} (see baton audit --archive ${store.location})`,
    );
  const tombstones: Tombstone[] = [];
  for (const entry of entries) {
    const text = await store.get(entry.key);
    const doc = text !== undefined ? (safeJson(text) as Partial<AuditExport> | undefined) : undefined;
    const tombstone: Tombstone = {
      schema: TOMBSTONE_SCHEMA,
      key: entry.key,
      workflowId,
      runId: entry.runId,
      ...(typeof doc?.head === 'string' ? { head: doc.head } : {}),
      ...(Array.isArray(doc?.events) ? { events: doc.events.length } : {}),
      erasedAt: (request.now ?? new Date()).toISOString(),
      reason: request.reason.slice(0, 1000),
      by: request.by.slice(0, 200),
    };
    await store.putIfAbsent(keyIn(TOMBSTONES, entry.key), `${JSON.stringify(tombstone, null, 2)}\n`);
    await store.delete(entry.key);
    tombstones.push(tombstone);
  }
  return { tombstones };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
