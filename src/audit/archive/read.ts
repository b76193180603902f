/**
 * Reading an archive once Temporal has deleted the histories: what it holds (chains, the chains
 * erased for a data subject, the chains lost before they were archived), an archived export, and
 * the offline check of each export — the same `verifyAuditExport` `baton audit --verify` runs,
 * plus that the export is the chain its key names.
 */
import { isRecord } from '../../common/check';
import type { AuditExport } from '../export';
import { type ExportVerification, verifyAuditExport, type VerifyExportOptions } from '../verifyExport';
import { LOST } from './archiver';
import { type ArchiveKeyParts, CHAINS, parseArchiveKey, TOMBSTONES } from './keys';
import type { ArchiveStore } from './store';

/** One entry of an archive. */
export interface ArchivedEntry extends ArchiveKeyParts {
  key: string;
  /** `archived`: an export; `erased`: a tombstone; `lost`: the history was gone before it was archived. */
  state: 'archived' | 'erased' | 'lost';
}

/** What an archive holds, oldest close date first; `workflowId` narrows it to one chain. */
export async function listArchive(store: ArchiveStore, filter: { workflowId?: string } = {}): Promise<ArchivedEntry[]> {
  const states: Record<string, ArchivedEntry['state']> = {
    [CHAINS]: 'archived',
    [TOMBSTONES]: 'erased',
    [LOST]: 'lost',
  };
  const entries: ArchivedEntry[] = [];
  for (const folder of Object.keys(states)) {
    for (const key of await store.list(`${folder}/`)) {
      const parts = parseArchiveKey(key);
      if (!parts || parts.folder !== folder) continue;
      if (filter.workflowId !== undefined && parts.workflowId !== filter.workflowId) continue;
      const { folder: _f, ...rest } = parts;
      entries.push({ key, state: states[folder]!, ...rest });
    }
  }
  return entries.sort((a, b) => (a.date !== b.date ? (a.date < b.date ? -1 : 1) : a.key < b.key ? -1 : 1));
}

/** The archived export under `key`, or why it is not one. */
export async function readArchived(store: ArchiveStore, key: string): Promise<AuditExport> {
  const text = await store.get(key);
  if (text === undefined) throw new Error(`${store.location} has no ${key}`);
  try {
    return JSON.parse(text) as AuditExport;
  } catch (err) {
    throw new Error(`${store.location}/${key} is not JSON: ${(err as Error).message}`);
  }
}

/** The check of one archived export. */
export interface ArchivedVerification {
  entry: ArchivedEntry;
  verification: ExportVerification;
}

/** Check every archived export (or those of one chain) offline; tombstones and lost records are listed, not checked. */
export async function verifyArchive(
  store: ArchiveStore,
  options: VerifyExportOptions & { workflowId?: string } = {},
): Promise<ArchivedVerification[]> {
  const { workflowId, ...verify } = options;
  const out: ArchivedVerification[] = [];
  for (const entry of await listArchive(store, workflowId !== undefined ? { workflowId } : {})) {
    if (entry.state !== 'archived') continue;
    let doc: unknown;
    try {
      doc = await readArchived(store, entry.key);
    } catch (err) {
      out.push({ entry, verification: failed((err as Error).message) });
      continue;
    }
    const verification = verifyAuditExport(doc, verify);
    const mismatch = keyMismatch(doc, entry);
    out.push({
      entry,
      verification:
        verification.ok && mismatch
          ? { ...verification, ok: false, failure: { seq: -1, reason: mismatch } }
          : verification,
    });
  }
  return out;
}

/** Why a document is not the chain its key names (another chain's export copied over it), if it is not. */
function keyMismatch(doc: unknown, entry: ArchivedEntry): string | undefined {
  if (!isRecord(doc) || !Array.isArray(doc.events)) return undefined;
  const opening = (doc.events[0] as { event?: { workflowId?: unknown; runIds?: unknown } } | undefined)?.event;
  // A segment too long for a file name keeps a digest in place of its end: only its start can be compared.
  const long = entry.workflowId.includes('~');
  if (!long && doc.workflowId !== entry.workflowId)
    return `it is the export of ${JSON.stringify(doc.workflowId)}, kept under the key of ${JSON.stringify(entry.workflowId)}`;
  if (!long && (!Array.isArray(opening?.runIds) || !opening.runIds.includes(entry.runId)))
    return `its chain's runs ${JSON.stringify(opening?.runIds)} do not include the run ${entry.runId} its key names`;
  return undefined;
}

function failed(reason: string): ExportVerification {
  return { ok: false, events: 0, failure: { seq: -1, reason } } as unknown as ExportVerification;
}
