/**
 * Verifying an exported audit offline (`baton audit --verify <file>`): the digest chain from the
 * first event to the head, and every signed decision against the keys its chain trusted — the
 * same pure verification the workflow ran when the decision arrived. The first event that fails
 * is named.
 */
import type { ApprovalRecord, PendingApproval } from '../common/approvals';
import { isRecord } from '../common/check';
import { canonicalJson, sha256Hex } from '../common/signatures/canonical';
import { type ApproverKey, approverKeysCheck, type TrustedKey } from '../common/signatures/keys';
import { factsOfRecord } from '../common/signatures/payload';
import { verifyDecisionSignature } from '../common/signatures/verify';
import { AUDIT_EXPORT_SCHEMA, eventDigest, type ExportedChain, genesisDigest } from './export';

/** What an offline check may hold the export to besides itself. */
export interface VerifyExportOptions {
  /** Keys you trust from elsewhere (e.g. the team's own list): a signature by any other key fails, even one the export lists. */
  trustedKeys?: ApproverKey[];
  /** The head digest you kept when the export was made: a document whose head differs fails. */
  head?: string;
}

/** The outcome of {@link verifyAuditExport}. */
export interface ExportVerification {
  ok: boolean;
  /** Events checked (all of them when `ok`). */
  events: number;
  /** Decisions whose signatures verified (`signed` and `token`). */
  signed: number;
  /** Decisions whose approver is a claimed name. */
  claimed: number;
  /** The key ids the verified signatures name. */
  keys: string[];
  /** Edited arguments the export redacts, whose digest could not be checked against them. */
  unchecked: number;
  head?: string;
  /** The first event that fails, and why. */
  failure?: { seq: number; workflowId?: string; kind?: string; reason: string };
}

interface ChainSeen {
  header: ExportedChain;
  asked: Map<string, Pick<PendingApproval, 'handoffId' | 'from' | 'to' | 'tool'>>;
}

/** Check an export: its digest chain, and every decision's signature. */
export function verifyAuditExport(doc: unknown, options: VerifyExportOptions = {}): ExportVerification {
  const result: ExportVerification = { ok: false, events: 0, signed: 0, claimed: 0, keys: [], unchecked: 0 };
  const fail = (seq: number, reason: string, at?: { workflowId?: unknown; kind?: unknown }): ExportVerification => ({
    ...result,
    failure: { seq, ...(typeof at?.workflowId === 'string' ? { workflowId: at.workflowId } : {}), ...(typeof at?.kind === 'string' ? { kind: at.kind } : {}), reason },
  });
  if (!isRecord(doc) || doc.schema !== AUDIT_EXPORT_SCHEMA || typeof doc.workflowId !== 'string' || !Array.isArray(doc.events)) {
    return fail(-1, `not an audit export: a JSON document with "schema": "${AUDIT_EXPORT_SCHEMA}", "workflowId" and "events" (baton audit <id> --export <file> makes one)`);
  }
  const chains = new Map<string, ChainSeen>();
  let previous = genesisDigest(doc.workflowId);
  for (const [i, e] of doc.events.entries()) {
    const ev = isRecord(e) && isRecord(e.event) ? e.event : undefined;
    const at = { workflowId: isRecord(e) ? e.workflowId : undefined, kind: ev?.kind };
    if (!isRecord(e) || !ev || typeof e.workflowId !== 'string' || typeof ev.kind !== 'string' || typeof e.digest !== 'string') return fail(i, 'not an exported event {seq, workflowId, event: {kind, …}, digest}', at);
    if (e.seq !== i) return fail(i, `it is numbered ${JSON.stringify(e.seq)} but stands at position ${i}: an event was removed, added or moved`, at);
    const digest = eventDigest(previous, { seq: i, workflowId: e.workflowId, event: ev as never });
    if (digest !== e.digest) return fail(i, 'its digest does not match the event and the digest before it: the event was changed, or one before it was removed, added or moved', at);
    previous = digest;
    const problem = checkedEvent(chains, e.workflowId, ev, result, options);
    if (problem) return fail(i, problem, at);
    result.events = i + 1;
  }
  result.head = previous;
  if (doc.head !== previous) return fail(doc.events.length, `the head ${JSON.stringify(doc.head)} is not the last event's digest ${previous}: events were cut off the end`);
  if (options.head !== undefined && options.head !== previous) return fail(doc.events.length, `the head is ${previous}, not ${options.head} as you kept it: this is another document`);
  return { ...result, ok: true };
}

/** What is wrong with an event whose digest holds; a document made by hand may hold anything, so nothing here throws. */
function checkedEvent(chains: Map<string, ChainSeen>, workflowId: string, ev: Record<string, unknown>, result: ExportVerification, options: VerifyExportOptions): string | undefined {
  try {
    return checkEvent(chains, workflowId, ev, result, options);
  } catch (err) {
    return `the event is not well formed: ${(err as Error).message}`;
  }
}

/** What is wrong with an event whose digest holds: a decision whose signature or record does not. */
function checkEvent(chains: Map<string, ChainSeen>, workflowId: string, ev: Record<string, unknown>, result: ExportVerification, options: VerifyExportOptions): string | undefined {
  if (ev.kind === 'chain') {
    if (ev.workflowId !== workflowId || !Array.isArray(ev.keys) || !Array.isArray(ev.sensitiveTools)) return 'a chain must open with {kind: "chain", workflowId, keys, sensitiveTools}';
    const keyProblems = approverKeysCheck(ev.keys.map((k: unknown) => (isRecord(k) ? (({ source: _s, ...key }) => key)(k) : k)), 'keys');
    if (keyProblems.length > 0) return `the chain's keys are not approver keys: ${keyProblems[0]}`;
    chains.set(workflowId, { header: ev as unknown as ExportedChain, asked: new Map() });
    return undefined;
  }
  const chain = chains.get(workflowId);
  if (!chain) return `the chain ${workflowId} has no opening "chain" event before its events`;
  if (ev.kind === 'approval_requested' && typeof ev.handoffId === 'string') chain.asked.set(ev.handoffId, ev as never);
  if (ev.kind !== 'approval_decided') return undefined;
  const r = ev as unknown as ApprovalRecord;
  const shapeProblem = recordProblem(r);
  if (shapeProblem) return shapeProblem;
  if (r.signature === undefined) {
    if (r.identity && r.identity.method !== 'claimed') return `the record says the approver was ${r.identity.method}, but it carries no signature`;
    if (r.outcome !== 'timed_out') result.claimed++;
    return undefined;
  }
  const asked = chain.asked.get(r.handoffId);
  if (!asked) return `it decides approval ${r.handoffId}, which no approval_requested of the chain asked for`;
  const facts = factsOfRecord(workflowId, asked, r);
  if (!facts) return 'a wait that timed out carries a signature';
  const verdict = verifyDecisionSignature(r.signature, facts, chain.header.keys, { requestedAt: Date.parse(r.requestedAt), arrivedAt: Date.parse(r.decidedAt) });
  if (!verdict.ok) return `the decision's signature does not hold: ${verdict.reason}`;
  const id = verdict.identity;
  if (r.identity?.method !== id.method || r.identity.kid !== id.kid || r.identity.issuer !== id.issuer || r.identity.subject !== id.subject) {
    return `the record says ${describe(r.identity)}, but the signature shows ${describe(id)}`;
  }
  const key = chain.header.keys.find((k) => k.kid === id.kid) as TrustedKey;
  if (options.trustedKeys && !options.trustedKeys.some((k) => k.kid === key.kid && k.publicKey === key.publicKey)) {
    return `key ${key.kid} is not among the keys you trust (or has another public key there)`;
  }
  const editedProblem = editedArgumentsProblem(chain.header, asked, r, result);
  if (editedProblem) return editedProblem;
  result.signed++;
  if (!result.keys.includes(key.kid)) result.keys.push(key.kid);
  return undefined;
}

/** Whether the edited arguments the record keeps are those whose digest was signed (unless the export redacts them). */
function editedArgumentsProblem(header: ExportedChain, asked: Pick<PendingApproval, 'from' | 'tool'>, r: ApprovalRecord, result: ExportVerification): string | undefined {
  if (r.editedArguments === undefined && r.argumentsDigest === undefined) return undefined;
  if (r.editedArguments === undefined || r.argumentsDigest === undefined) return 'the record keeps edited arguments without their digest, or a digest without them';
  if (header.sensitiveTools.includes(`${asked.from}/${asked.tool?.name}`)) {
    result.unchecked++;
    return undefined;
  }
  let args: unknown;
  try {
    args = JSON.parse(r.editedArguments);
  } catch {
    return 'the edited arguments are not JSON';
  }
  return sha256Hex(canonicalJson(args)) === r.argumentsDigest ? undefined : 'the edited arguments are not those whose digest the approver signed';
}

/** Why a decided event is not a record a verifier can read: fields of the wrong type, or times that are not times. */
function recordProblem(r: ApprovalRecord): string | undefined {
  const strings = ['handoffId', 'outcome', 'requestedAt', 'decidedAt'] as const;
  const optional = ['approver', 'comment', 'reason', 'signature', 'editedArguments', 'argumentsDigest'] as const;
  if (strings.some((f) => typeof r[f] !== 'string') || optional.some((f) => r[f] !== undefined && typeof r[f] !== 'string')) return 'the decision is not an approval record (a field has the wrong type)';
  if (Number.isNaN(Date.parse(r.requestedAt)) || Number.isNaN(Date.parse(r.decidedAt))) return "the decision's requestedAt and decidedAt must be ISO 8601 times";
  if (r.identity !== undefined && (!isRecord(r.identity) || typeof r.identity.method !== 'string')) return "the decision's identity is not {method, kid?, …}";
  return undefined;
}

function describe(identity: ApprovalRecord['identity']): string {
  if (!identity) return 'no identity';
  return `${identity.method}${identity.kid ? ` with key ${identity.kid}` : ''}${identity.issuer ? ` (issuer ${identity.issuer}, subject ${identity.subject})` : ''}`;
}
