/**
 * The audit as a self-contained document anyone can verify (`baton audit <id> --export`): every
 * event of the chain and of its specialists' chains, in order, each chained to the one before by
 * a SHA-256 digest over the previous digest and the event's canonical JSON; each chain opens with
 * the public keys it trusted, so every decision's signature can be checked offline
 * (`baton audit --verify`, {@link verifyAuditExport}).
 */
import type { ParentLink } from '../common/run';
import { canonicalJson, sha256Hex } from '../common/signatures/canonical';
import { type TrustedKey, trustedKeys } from '../common/signatures/keys';
import type { AuditChain, AuditEvent, AuditStatus } from './types';

/** Version tag of the export; a breaking change to its shape gets a new one. */
export const AUDIT_EXPORT_SCHEMA = 'baton.audit-export/v1';

/** The event that opens each chain of an export: what the chain was, and the keys it trusted. */
export interface ExportedChain {
  kind: 'chain';
  workflowId: string;
  runIds: string[];
  status: AuditStatus;
  /** The team's version id and hash, when its snapshot has them. */
  team?: string;
  teamHash?: string;
  parent?: ParentLink;
  /** The public keys the chain trusted (its team's and its run's), with where each was named. */
  keys: TrustedKey[];
  /** Tools whose arguments the export redacts (`agent/tool`): their edited arguments cannot be checked against their digest. */
  sensitiveTools: string[];
}

/** One event of an export: its place, its chain, the event, and its digest. */
export interface ExportedEvent {
  seq: number;
  /** The chain the event belongs to (the top chain's id, or a specialist's). */
  workflowId: string;
  event: ExportedChain | AuditEvent;
  /** SHA-256 (hex) of `<previous digest> "\n" <canonical JSON of {seq, workflowId, event}>`. */
  digest: string;
}

/** A verifiable audit. */
export interface AuditExport {
  schema: typeof AUDIT_EXPORT_SCHEMA;
  /** The top chain. */
  workflowId: string;
  /** When it was made; not covered by the digests. */
  exportedAt: string;
  digest: 'sha256';
  events: ExportedEvent[];
  /** The last event's digest: keep or publish it to tell this document from a rewritten one. */
  head: string;
}

/** The digest the first event chains to: SHA-256 of the canonical `{schema, workflowId}`. */
export function genesisDigest(workflowId: string): string {
  return sha256Hex(canonicalJson({ schema: AUDIT_EXPORT_SCHEMA, workflowId }));
}

/** The digest of an event: over the previous digest and the event's canonical JSON. */
export function eventDigest(previous: string, e: Pick<ExportedEvent, 'seq' | 'workflowId' | 'event'>): string {
  return sha256Hex(`${previous}\n${canonicalJson({ seq: e.seq, workflowId: e.workflowId, event: e.event })}`);
}

/** The export of an audit (and its specialists' audits, in `children`). */
export function exportAudit(chain: AuditChain, now = new Date()): AuditExport {
  const events: ExportedEvent[] = [];
  let previous = genesisDigest(chain.workflowId);
  const add = (workflowId: string, event: ExportedChain | AuditEvent) => {
    const entry = { seq: events.length, workflowId, event: plain(event) };
    previous = eventDigest(previous, entry);
    events.push({ ...entry, digest: previous });
  };
  const walk = (c: AuditChain) => {
    add(c.workflowId, chainEvent(c));
    for (const e of c.events) add(c.workflowId, e);
    for (const child of c.children ?? []) walk(child);
  };
  walk(chain);
  return { schema: AUDIT_EXPORT_SCHEMA, workflowId: chain.workflowId, exportedAt: now.toISOString(), digest: 'sha256', events, head: previous };
}

function chainEvent(c: AuditChain): ExportedChain {
  const team = c.team;
  const sensitiveTools = Object.values(team?.agents ?? {}).flatMap((a) => Object.entries(a.toolSensitivity ?? {}).flatMap(([tool, s]) => (s.arguments ? [`${a.id}/${tool}`] : [])));
  return {
    kind: 'chain',
    workflowId: c.workflowId,
    runIds: c.runIds,
    status: c.status,
    ...(team?.version ? { team: team.version.id, teamHash: team.version.hash } : {}),
    ...(c.parent ? { parent: c.parent } : {}),
    keys: team ? trustedKeys(team, c.input?.options?.approverKeys) : [],
    sensitiveTools,
  };
}

/** The event as JSON holds it (no `undefined` fields), so the digest made here is the one a reader of the file makes. */
function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
