/**
 * Verifying an exported audit offline (`baton audit --verify <file>`): the digest chain from the
 * first event to the head; what the events mean ({@link ExportMeaning}: requests before decisions,
 * one decision per approval, signatures where they were required and every signature against the
 * keys its chain trusted, every approved tool call after its decision, recorded digests); and the
 * head's signature by a key the reader trusts. The first problem is named.
 */
import { isRecord } from '../common/check';
import { type ExportKey, headSignatureKid, verifyHeadSignature } from '../common/signatures/head';
import type { ApproverKey } from '../common/signatures/keys';
import { AUDIT_EXPORT_SCHEMA, eventDigest, genesisDigest } from './export';
import { ExportMeaning, type MeaningCounts } from './exportMeaning';

/** What an offline check may hold the export to besides itself. */
export interface VerifyExportOptions {
  /**
   * Keys trusted to sign export heads: the head must be signed by one of them, else the export
   * fails (unless {@link acceptUntrustedHead}). A key the document itself names is never trusted.
   */
  exportKeys?: ExportKey[];
  /**
   * Check the rest even when the head is unsigned, or signed by a key not in {@link exportKeys}:
   * such a document may have been rewritten whole, digests and all. @default false
   */
  acceptUntrustedHead?: boolean;
  /** Approver keys you trust from elsewhere (e.g. the team's own list): a decision's signature by any other key fails, even one the export lists. */
  trustedKeys?: ApproverKey[];
  /** The head digest you kept when the export was made: a document whose head differs fails. */
  head?: string;
}

/** How the head of a verified export is vouched for. */
export type HeadVouch =
  | { status: 'trusted'; kid: string; signedAt: string }
  /** Accepted because {@link VerifyExportOptions.acceptUntrustedHead} said so: `kid` when signed by a key not trusted. */
  | { status: 'unsigned' | 'untrusted'; kid?: string; reason: string };

/** The outcome of {@link verifyAuditExport}. */
export interface ExportVerification extends MeaningCounts {
  ok: boolean;
  /** Events checked (all of them when `ok`). */
  events: number;
  head?: string;
  /** Who vouches for the head (when the events verified). */
  headSignature?: HeadVouch;
  /** The first problem: the event it is at (`seq` -1 for the document, the number of events for its head), and why. */
  failure?: { seq: number; workflowId?: string; kind?: string; reason: string };
}

/** Check an export: its digest chain, what its events mean, every decision's signature, and the signature of its head. */
export function verifyAuditExport(doc: unknown, options: VerifyExportOptions = {}): ExportVerification {
  const result: ExportVerification = {
    ok: false,
    events: 0,
    signed: 0,
    claimed: 0,
    keys: [],
    unchecked: 0,
    approvedCalls: 0,
    recorded: 0,
  };
  const fail = (seq: number, reason: string, at?: { workflowId?: unknown; kind?: unknown }): ExportVerification => ({
    ...result,
    failure: {
      seq,
      ...(typeof at?.workflowId === 'string' ? { workflowId: at.workflowId } : {}),
      ...(typeof at?.kind === 'string' ? { kind: at.kind } : {}),
      reason,
    },
  });
  if (isRecord(doc) && doc.schema === 'baton.audit-export/v1') {
    return fail(
      -1,
      `this export (baton.audit-export/v1) was made by an earlier baton: it has no signed head and lacks what the checks of ${AUDIT_EXPORT_SCHEMA} read; export the chain again (baton audit <id> --export <file>)`,
    );
  }
  if (
    !isRecord(doc) ||
    doc.schema !== AUDIT_EXPORT_SCHEMA ||
    typeof doc.workflowId !== 'string' ||
    !Array.isArray(doc.events)
  ) {
    return fail(
      -1,
      `not an audit export: a JSON document with "schema": "${AUDIT_EXPORT_SCHEMA}", "workflowId" and "events" (baton audit <id> --export <file> makes one)`,
    );
  }
  const meaning = new ExportMeaning(result, options.trustedKeys);
  let previous = genesisDigest(doc.workflowId);
  for (const [i, e] of doc.events.entries()) {
    const ev = isRecord(e) && isRecord(e.event) ? e.event : undefined;
    const at = { workflowId: isRecord(e) ? e.workflowId : undefined, kind: ev?.kind };
    if (
      !isRecord(e) ||
      !ev ||
      typeof e.workflowId !== 'string' ||
      typeof ev.kind !== 'string' ||
      typeof e.digest !== 'string'
    )
      return fail(i, 'not an exported event {seq, workflowId, event: {kind, …}, digest}', at);
    if (e.seq !== i)
      return fail(
        i,
        `it is numbered ${JSON.stringify(e.seq)} but stands at position ${i}: an event was removed, added or moved`,
        at,
      );
    let digest: string;
    try {
      digest = eventDigest(previous, {
        seq: i,
        workflowId: e.workflowId,
        event: ev as never,
        recorded: e.recorded as never,
      });
    } catch (err) {
      return fail(i, `the event is not JSON a digest can be made of: ${(err as Error).message}`, at);
    }
    if (digest !== e.digest)
      return fail(
        i,
        'its digest does not match the event and the digest before it: the event was changed, or one before it was removed, added or moved',
        at,
      );
    previous = digest;
    const problem = meaning.check(i, e.workflowId, ev, e.recorded);
    if (problem) return fail(i, problem, at);
    result.events = i + 1;
  }
  result.head = previous;
  const end = doc.events.length;
  if (doc.head !== previous)
    return fail(
      end,
      `the head ${JSON.stringify(doc.head)} is not the last event's digest ${previous}: events were cut off the end`,
    );
  if (options.head !== undefined && options.head !== previous)
    return fail(end, `the head is ${previous}, not ${options.head} as you kept it: this is another document`);
  const vouch = headVouch(
    doc,
    { schema: AUDIT_EXPORT_SCHEMA, workflowId: doc.workflowId, head: previous, events: end },
    options,
  );
  if ('failure' in vouch) return fail(end, vouch.failure);
  return { ...result, headSignature: vouch, ok: true };
}

/** Who vouches for the head: a key the reader trusts, or (only when told to accept it) nobody trusted. */
function headVouch(
  doc: Record<string, unknown>,
  facts: { schema: string; workflowId: string; head: string; events: number },
  options: VerifyExportOptions,
): HeadVouch | { failure: string } {
  const keys = options.exportKeys ?? [];
  const accept = options.acceptUntrustedHead === true;
  const accepting = 'accept an untrusted head explicitly (--accept-untrusted-head, {acceptUntrustedHead: true})';
  if (doc.headSignature === undefined) {
    const reason = 'the head is not signed: nothing shows who made this document, and anyone can recompute its digests';
    return accept
      ? { status: 'unsigned', reason }
      : {
          failure: `${reason}; sign exports (baton audit <id> --export <file> --key <file>, or BATON_AUDIT_KEY / BATON_SERVICE_KEY), or ${accepting}`,
        };
  }
  if (typeof doc.headSignature !== 'string')
    return { failure: 'the head signature must be a JWS compact serialization (a string)' };
  const verdict = verifyHeadSignature(doc.headSignature, facts, keys);
  if (verdict.ok) return { status: 'trusted', kid: verdict.kid, signedAt: verdict.signedAt };
  // A signature that does not hold with a key one trusts is a changed document, accepted or not.
  if (verdict.problem !== 'untrusted_key') return { failure: verdict.reason };
  const kid = verdict.kid ?? headSignatureKid(doc.headSignature);
  return accept
    ? { status: 'untrusted', ...(kid !== undefined ? { kid } : {}), reason: verdict.reason }
    : {
        failure: `${verdict.reason}: trust its key with --export-keys <file> or BATON_AUDIT_KEYS ({exportKeys}) if it is yours, or ${accepting}`,
      };
}
