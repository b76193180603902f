/**
 * Where an archived audit is kept: `chains/<tenant>/<team>/<YYYY-MM-DD>/<workflowId>/<runId>.json`
 * (the date is the close date in UTC, the team its name, the tenant the chain's context field the
 * archive is told, `_` without one), each segment URI-encoded. The key depends only on the chain, so
 * every attempt to archive it writes the same object. A chain erased for a data subject leaves a
 * tombstone under `tombstones/…` with the same tail.
 */
import { createHash } from 'node:crypto';

/** What a key says. */
export interface ArchiveKeyParts {
  tenant: string;
  team: string;
  /** `YYYY-MM-DD` (UTC). */
  date: string;
  workflowId: string;
  runId: string;
}

/** The folder of archived exports. */
export const CHAINS = 'chains';
/** The folder of tombstones: chains erased for a data subject. */
export const TOMBSTONES = 'tombstones';
/** The folder of SIEM delivery receipts (the HTTP stream's). */
export const RECEIPTS = 'siem-receipts';

/** The value of a segment when the chain has none (no tenant, no team name). */
export const NONE = '_';

/** The archive key of a chain's export under `folder` (`chains` or `tombstones`). */
export function archiveKey(parts: ArchiveKeyParts, folder: string = CHAINS): string {
  return [
    folder,
    segment(parts.tenant),
    segment(parts.team),
    segment(parts.date),
    segment(parts.workflowId),
    `${segment(parts.runId)}.json`,
  ].join('/');
}

/** What an archive key says, or `undefined` for a key of another shape. */
export function parseArchiveKey(key: string): (ArchiveKeyParts & { folder: string }) | undefined {
  const parts = key.split('/');
  if (parts.length !== 6 || !parts[5]!.endsWith('.json')) return undefined;
  try {
    const [folder, tenant, team, date, workflowId, file] = parts.map((p) => decodeURIComponent(p)) as [
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    return { folder, tenant, team, date, workflowId, runId: file.slice(0, -'.json'.length) };
  } catch {
    return undefined;
  }
}

/** The key of the same chain in another folder. */
export function keyIn(folder: string, key: string): string {
  return [folder, ...key.split('/').slice(1)].join('/');
}

/**
 * A segment of a key: URI-encoded (no `/`), never `.` or `..`, and at most 200 characters (a long
 * value keeps its start and gains a digest of the whole), so it is a file name on every file system.
 */
export function segment(value: string): string {
  const encoded = encodeURIComponent(value === '' ? NONE : value).replace(/\./g, '%2E');
  if (encoded.length <= 200) return encoded;
  const digest = createHash('sha256').update(value).digest('hex').slice(0, 32);
  return `${encoded.slice(0, 160).replace(/%[0-9A-F]?$/, '')}~${digest}`;
}
