/**
 * The audit as a self-contained document anyone can verify (`baton audit <id> --export`): every
 * event of the chain and of its specialists' chains, in order, each chained to the one before by
 * a SHA-256 digest over the previous digest and the event's canonical JSON; each chain opens with
 * the public keys it trusted and the tools whose calls need approval, so every decision's
 * signature and every approved call can be checked offline; the head, signed by the key of whoever
 * made the document ({@link signAuditExport}), says who vouches for all of it
 * (`baton audit --verify`, {@link verifyAuditExport}).
 */
import type { ApprovalRule } from '../common/approvals';
import type { ToolApprovalSpec } from '../common/controls';
import type { ParentLink } from '../common/run';
import { canonicalJson, sha256Hex } from '../common/signatures/canonical';
import { type Ed25519Signer, signHead } from '../common/signatures/head';
import { type TrustedKey, trustedKeys } from '../common/signatures/keys';
import type { TeamSpec } from '../common/team';
import type { AuditChain, AuditEvent, AuditStatus } from './types';

/** Version tag of the export; a breaking change to its shape gets a new one. */
export const AUDIT_EXPORT_SCHEMA = 'baton.audit-export/v2';

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
  /** Tools whose calls need approval (`agent/tool`), with the team's policy: every such call that ran must name its approving decision. */
  toolApprovals: Record<string, ToolApprovalSpec>;
  /**
   * The approval rules of handoffs, by precedence: the run's rules, the team's rules, then each
   * agent's own policy as a rule `{to: agent, …}`. The first group with a rule for the edge (or
   * else for its target) decides; every handoff that needed approval must name its decision.
   */
  handoffApprovals: ApprovalRule[][];
}

/**
 * Where history recorded what an event shows, to check it against the history while it exists
 * (`baton audit --verify <file> --against-history`): the history event (of the event's run) and the
 * SHA-256 of the canonical JSON of what the event shows of it (`recordedValue`).
 */
export interface RecordedPayload {
  eventId: number;
  digest: string;
}

/** One event of an export: its place, its chain, the event, where history recorded it, and its digest. */
export interface ExportedEvent {
  seq: number;
  /** The chain the event belongs to (the top chain's id, or a specialist's). */
  workflowId: string;
  event: ExportedChain | AuditEvent;
  /** Absent for events whose payload the export redacts, and for those it does not claim. */
  recorded?: RecordedPayload;
  /** SHA-256 (hex) of `<previous digest> "\n" <canonical JSON of {seq, workflowId, event, recorded}>`. */
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
  /** A JWS by whoever made the document over its schema, chain, head and number of events ({@link signAuditExport}). */
  headSignature?: string;
}

/** Options of {@link exportAudit}. */
export interface ExportOptions {
  /** When it is made. @default now */
  now?: Date;
}

/** The digest the first event chains to: SHA-256 of the canonical `{schema, workflowId}`. */
export function genesisDigest(workflowId: string): string {
  return sha256Hex(canonicalJson({ schema: AUDIT_EXPORT_SCHEMA, workflowId }));
}

/** The digest of an event: over the previous digest and the event's canonical JSON. */
export function eventDigest(
  previous: string,
  e: Pick<ExportedEvent, 'seq' | 'workflowId' | 'event' | 'recorded'>,
): string {
  return sha256Hex(
    `${previous}\n${canonicalJson({ seq: e.seq, workflowId: e.workflowId, event: e.event, recorded: e.recorded })}`,
  );
}

/** The events whose fields are the memo baton wrote to history: an approval asked, decided, and a policy update applied. */
export const RECORDED_MEMOS: readonly string[] = ['approval_requested', 'approval_decided', 'policy_updated'];

/**
 * What an event shows of the payload history recorded for it, whose digest {@link RecordedPayload}
 * keeps: a tool call's `{ok, content}` (the `runTool` result), an approval event's or a policy
 * update's fields (the memo baton wrote); `undefined` for other events.
 */
export function recordedValue(event: Record<string, unknown>): unknown {
  if (event.kind === 'tool_call')
    return event.result === undefined ? undefined : { ok: event.ok, content: event.result };
  if (!RECORDED_MEMOS.includes(String(event.kind))) return undefined;
  const { kind: _kind, at: _at, runId: _runId, eventId: _eventId, ...fields } = event;
  return fields;
}

/** The export of an audit (and its specialists' audits, in `children`), its head not signed yet ({@link signAuditExport}). */
export function exportAudit(chain: AuditChain, options: ExportOptions = {}): AuditExport {
  const events: ExportedEvent[] = [];
  let previous = genesisDigest(chain.workflowId);
  const add = (workflowId: string, event: ExportedChain | AuditEvent, recorded?: RecordedPayload) => {
    const entry = { seq: events.length, workflowId, event: plain(event), ...(recorded ? { recorded } : {}) };
    previous = eventDigest(previous, entry);
    events.push({ ...entry, digest: previous });
  };
  const walk = (c: AuditChain) => {
    add(c.workflowId, chainEvent(c));
    const claims = new RecordedClaims(c.team);
    for (const e of c.events) add(c.workflowId, e, claims.of(e));
    for (const child of c.children ?? []) walk(child);
  };
  walk(chain);
  return {
    schema: AUDIT_EXPORT_SCHEMA,
    workflowId: chain.workflowId,
    exportedAt: (options.now ?? new Date()).toISOString(),
    digest: 'sha256',
    events,
    head: previous,
  };
}

/**
 * `doc` with its head signed by `signer`: an Ed25519 key held here (`decisionSigner(privateKey)`,
 * `decisionSignerFromFile(file)`) or a function that asks an HSM, a KMS or another process. Its
 * readers trust the document as far as they trust that key.
 * @example const doc = await signAuditExport(exportAudit(await baton.audit(id)), decisionSignerFromFile('audit.jwk'));
 */
export async function signAuditExport(
  doc: AuditExport,
  signer: Ed25519Signer,
  options: ExportOptions = {},
): Promise<AuditExport> {
  const facts = { schema: doc.schema, workflowId: doc.workflowId, head: doc.head, events: doc.events.length };
  return { ...doc, headSignature: await signHead(signer, facts, (options.now ?? new Date()).getTime()) };
}

/** The history payloads an export claims its events show: not those it redacts. */
class RecordedClaims {
  private readonly asked = new Map<string, { from: string; tool?: string }>();

  constructor(private readonly team: TeamSpec | undefined) {}

  of(e: AuditEvent): RecordedPayload | undefined {
    let eventId = e.eventId;
    if (e.kind === 'tool_call') {
      if (e.answeredBy !== 'tool' || e.resultEventId === undefined || this.redacted(e.agent, e.tool)) return undefined;
      eventId = e.resultEventId;
    } else if (e.kind === 'approval_requested') {
      this.asked.set(e.handoffId, { from: e.from, ...(e.tool ? { tool: e.tool.name } : {}) });
      if (e.tool && this.redacted(e.from, e.tool.name)) return undefined;
    } else if (e.kind === 'approval_decided') {
      const asked = this.asked.get(e.handoffId);
      if (e.tool !== undefined && (!asked || this.redacted(asked.from, e.tool))) return undefined;
    } else if (e.kind !== 'policy_updated') return undefined;
    const value = recordedValue(plain(e) as unknown as Record<string, unknown>);
    return value === undefined ? undefined : { eventId, digest: sha256Hex(canonicalJson(value)) };
  }

  private redacted(agent: string, tool: string): boolean {
    return this.team?.agents[agent]?.toolSensitivity?.[tool] !== undefined;
  }
}

function chainEvent(c: AuditChain): ExportedChain {
  const team = c.team;
  const sensitiveTools = Object.values(team?.agents ?? {}).flatMap((a) =>
    Object.entries(a.toolSensitivity ?? {}).flatMap(([tool, s]) => (s.arguments ? [`${a.id}/${tool}`] : [])),
  );
  return {
    kind: 'chain',
    workflowId: c.workflowId,
    runIds: c.runIds,
    status: c.status,
    ...(team?.version ? { team: team.version.id, teamHash: team.version.hash } : {}),
    ...(c.parent ? { parent: c.parent } : {}),
    keys: team ? trustedKeys(team, c.input?.options?.approverKeys) : [],
    sensitiveTools,
    handoffApprovals: [
      c.input?.options?.approvals ?? [],
      team?.approvals ?? [],
      Object.values(team?.agents ?? {}).flatMap((a) => (a.approval ? [{ ...a.approval, to: a.id }] : [])),
    ],
    toolApprovals: Object.fromEntries(
      Object.values(team?.agents ?? {}).flatMap((a) =>
        Object.entries(a.toolApprovals ?? {}).map(([tool, spec]) => [`${a.id}/${tool}`, spec]),
      ),
    ),
  };
}

/** The event as JSON holds it (no `undefined` fields), so the digest made here is the one a reader of the file makes. */
function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
