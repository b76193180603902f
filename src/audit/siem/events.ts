/**
 * The SIEM stream's events: each event of an archived export as a CloudEvents 1.0 event (JSON
 * format, one per line), and one `closed` event per chain with how it ended, its usage and cost,
 * and where its export is kept. An event's `id` is the digest the export chains it with, so a
 * receiver drops an event it already has, and an event in a SIEM can be checked against the
 * archived export it came from. Schema: docs/compliance.md ("The SIEM stream").
 */
import type { AuditExport, ExportedChain, ExportedEvent } from '../export';
import type { AuditEvent } from '../types';
import { parseArchiveKey } from '../archive/keys';

/** The `dataschema` of every event: baton's SIEM event data, version 1. */
export const SIEM_DATA_SCHEMA = 'urn:baton:siem-event:v1';

/** The `type` of an event: `dev.baton.audit.<kind>` (`chain`, `model_turn`, `tool_call`, `handoff`, `approval_decided`, …, `closed`). */
export const SIEM_TYPE_PREFIX = 'dev.baton.audit.';

/** One line of the stream. */
export interface SiemEvent {
  specversion: '1.0';
  /** The event's digest in the export (`closed`: the export's head followed by `:closed`). */
  id: string;
  /** `baton://<namespace>`. */
  source: string;
  type: string;
  /** The chain (the top chain's id; `data.workflowId` names a specialist's). */
  subject: string;
  /** When it happened (history's time). */
  time?: string;
  datacontenttype: 'application/json';
  dataschema: typeof SIEM_DATA_SCHEMA;
  /** Extension attributes, for routing without reading `data`. */
  batontenant: string;
  batonteam: string;
  data: SiemEventData;
}

/** What every event carries. */
export interface SiemEventData {
  /** The chain the event belongs to (the top chain's, or a specialist's). */
  workflowId: string;
  runId?: string;
  /** Its place in the export, and the digest chain's head: find the export, verify it, find the event. */
  seq: number;
  digest: string;
  head: string;
  /** Where the export is kept in the archive. */
  archiveKey: string;
  /** The event, as the export has it (redacted as the team and the archive say). */
  event: ExportedChain | AuditEvent | ClosedSummary;
}

/** The event that ends a chain's events. */
export interface ClosedSummary {
  kind: 'closed';
  status: string;
  closedAt: string;
  modelCalls: number;
  toolCalls: number;
  handoffs: number;
  decisions: number;
  inputTokens: number;
  outputTokens: number;
  /** Cost by currency, in micros, of the priced model calls. */
  costMicros: Record<string, number>;
  events: number;
}

/** The stream's events of one archived export. */
export function siemEvents(
  doc: AuditExport,
  context: { namespace: string; archiveKey: string; closedAt: string; status: string },
): SiemEvent[] {
  const parts = parseArchiveKey(context.archiveKey);
  const envelope = (id: string, type: string, time: string | undefined, data: SiemEventData): SiemEvent => ({
    specversion: '1.0',
    id,
    source: `baton://${context.namespace}`,
    type: `${SIEM_TYPE_PREFIX}${type}`,
    subject: doc.workflowId,
    ...(time ? { time } : {}),
    datacontenttype: 'application/json',
    dataschema: SIEM_DATA_SCHEMA,
    batontenant: parts?.tenant ?? '_',
    batonteam: parts?.team ?? '_',
    data,
  });
  const base = (e: ExportedEvent) => ({
    workflowId: e.workflowId,
    ...('runId' in e.event ? { runId: e.event.runId } : {}),
    seq: e.seq,
    digest: e.digest,
    head: doc.head,
    archiveKey: context.archiveKey,
  });
  const lines = doc.events.map((e) =>
    envelope(e.digest, e.event.kind, 'at' in e.event ? e.event.at : undefined, { ...base(e), event: e.event }),
  );
  const summary = summarize(doc, context);
  lines.push(
    envelope(`${doc.head}:closed`, 'closed', context.closedAt, {
      workflowId: doc.workflowId,
      seq: doc.events.length,
      digest: doc.head,
      head: doc.head,
      archiveKey: context.archiveKey,
      event: summary,
    }),
  );
  return lines;
}

function summarize(doc: AuditExport, context: { closedAt: string; status: string }): ClosedSummary {
  const s: ClosedSummary = {
    kind: 'closed',
    status: context.status,
    closedAt: context.closedAt,
    modelCalls: 0,
    toolCalls: 0,
    handoffs: 0,
    decisions: 0,
    inputTokens: 0,
    outputTokens: 0,
    costMicros: {},
    events: doc.events.length,
  };
  for (const { event: e } of doc.events) {
    if (e.kind === 'model_turn') {
      s.modelCalls++;
      s.inputTokens += e.inputTokens ?? 0;
      s.outputTokens += e.outputTokens ?? 0;
      if (e.cost) s.costMicros[e.cost.currency] = (s.costMicros[e.cost.currency] ?? 0) + e.cost.micros;
    } else if (e.kind === 'tool_call') s.toolCalls++;
    else if (e.kind === 'handoff') s.handoffs++;
    else if (e.kind === 'approval_decided') s.decisions++;
  }
  return s;
}
