/**
 * Checking an export against the workflow histories it was read from, while they exist
 * (`baton audit --verify <file> --against-history`): every event that claims a recorded payload
 * (`recorded`: a tool call's result, an approval's request or decision, a policy update) shows what
 * history holds at that event; and no approval event, policy update or tool result history holds, up to where the export
 * ends, is left out of it.
 */
import type { Client } from '@temporalio/client';
import { isRecord } from '../common/check';
import { ActivityType } from '../common/messages';
import { canonicalJson, sha256Hex } from '../common/signatures/canonical';
import type { RunToolInput, RunToolResult } from '../common/team';
import { fromPayloads, type HistoryEvent } from '../payloads/read';
import { type AuditExport, RECORDED_MEMOS } from './export';
import { fetchChainRuns } from './fetch';
import { recordedApprovalEvent, withLocalActivities } from './history';

/** The outcome of {@link verifyAgainstHistory}. */
export interface HistoryVerification {
  ok: boolean;
  /** Events whose recorded payload matched history. */
  matched: number;
  /** Chains whose histories were read. */
  chains: number;
  /** The first problem: the event it is at (`seq` -1 when it is no one event), and why. */
  failure?: { seq: number; workflowId?: string; kind?: string; reason: string };
}

type Runs = Map<string, Map<number, HistoryEvent>>;

/**
 * Check `doc` (an export that {@link verifyAuditExport} verified) against the histories of its
 * chains, read with `client` (and its payload codecs).
 */
export async function verifyAgainstHistory(client: Client, doc: AuditExport): Promise<HistoryVerification> {
  const result: HistoryVerification = { ok: false, matched: 0, chains: 0 };
  const fail = (seq: number, reason: string, at: { workflowId?: string; kind?: string } = {}): HistoryVerification => ({
    ...result,
    failure: { seq, ...at, reason },
  });
  const chains = doc.events.flatMap((e) => (e.event.kind === 'chain' ? [e.workflowId] : []));
  for (const workflowId of chains) {
    let runs: Runs;
    try {
      runs = await historyOf(client, workflowId);
    } catch (err) {
      return fail(
        -1,
        `cannot read the history of chain ${workflowId} (${(err as Error).message}): a chain whose retention passed can be checked offline only`,
        { workflowId },
      );
    }
    result.chains++;
    const events = doc.events.filter((e) => e.workflowId === workflowId && e.event.kind !== 'chain');
    for (const e of events) {
      if (!e.recorded) continue;
      const ev = e.event as unknown as Record<string, unknown>;
      const at = { workflowId, kind: String(ev.kind) };
      const h = runs.get(String(ev.runId))?.get(e.recorded.eventId);
      if (!h)
        return fail(
          e.seq,
          `history has no event ${e.recorded.eventId} in run ${String(ev.runId)} of the chain, where the export says it was recorded`,
          at,
        );
      const value = recordedAt(h, String(ev.kind));
      if (value === undefined)
        return fail(
          e.seq,
          `history event ${e.recorded.eventId} of run ${String(ev.runId)} is not a ${String(ev.kind)}, as the export says it is`,
          at,
        );
      if (sha256Hex(canonicalJson(value)) !== e.recorded.digest)
        return fail(
          e.seq,
          `history recorded something else at event ${e.recorded.eventId} of run ${String(ev.runId)}: the export's ${String(ev.kind) === 'tool_call' ? 'tool result' : String(ev.kind).replace('_', ' ')} was rewritten`,
          at,
        );
      result.matched++;
    }
    const missing = leftOut(
      runs,
      events.map((e) => e.event as unknown as Record<string, unknown>),
    );
    if (missing) return fail(-1, missing, { workflowId });
  }
  return { ...result, ok: true };
}

/** The decoded history events of a chain's runs, by run and event id. */
async function historyOf(client: Client, workflowId: string): Promise<Runs> {
  const { runs } = await fetchChainRuns(client, workflowId, undefined, { throughReplays: true });
  return new Map(
    runs.map((r) => [
      r.runId,
      new Map(withLocalActivities(r.events).map((e) => [Number(e.eventId?.toString() ?? 0), e])),
    ]),
  );
}

/** What history recorded at `h` for an event of `kind`, as the export's {@link recordedValue} shows it; `undefined` when `h` records no such thing. */
function recordedAt(h: HistoryEvent, kind: string): unknown {
  if (kind === 'tool_call') {
    const done = h.activityTaskCompletedEventAttributes;
    const r = done ? fromPayloads<RunToolResult>(done.result) : undefined;
    return isRecord(r) ? { ok: r.ok, content: r.content } : undefined;
  }
  const memo = recordedApprovalEvent(h);
  if (!memo || memo.type !== kind) return undefined;
  const { type: _type, at: _at, ...fields } = memo;
  return fields;
}

/**
 * An approval event, or a tool's result, that history holds in a run the export covers, no later
 * than the last event the export shows of that run, but that the export leaves out.
 */
function leftOut(runs: Runs, events: Record<string, unknown>[]): string | undefined {
  for (const [runId, history] of runs) {
    const shown = events.filter((e) => e.runId === runId);
    if (shown.length === 0) continue;
    const last = Math.max(...shown.map((e) => Number(e.eventId)), ...shown.map((e) => Number(e.resultEventId ?? 0)));
    const approvals = new Set(
      shown.flatMap((e) => (RECORDED_MEMOS.includes(String(e.kind)) ? [`${String(e.kind)}@${String(e.eventId)}`] : [])),
    );
    const results = new Set(
      shown.flatMap((e) => (e.kind === 'tool_call' && e.resultEventId !== undefined ? [Number(e.resultEventId)] : [])),
    );
    const tools = new Set(
      [...history.values()].flatMap((h) =>
        h.activityTaskScheduledEventAttributes?.activityType?.name === ActivityType.RUN_TOOL
          ? [Number(h.eventId?.toString())]
          : [],
      ),
    );
    for (const [id, h] of history) {
      if (id > last) break;
      const memo = recordedApprovalEvent(h);
      if (memo && RECORDED_MEMOS.includes(memo.type) && !approvals.has(`${memo.type}@${id}`)) {
        const what =
          memo.type === 'policy_updated'
            ? `policy ${String(memo.to)} applied by ${String(memo.appliedBy)}`
            : `approval ${String(memo.handoffId)}`;
        return `history records ${memo.type} (${what}) at event ${id} of run ${runId}, which the export leaves out`;
      }
      const done = h.activityTaskCompletedEventAttributes;
      if (done && tools.has(Number(done.scheduledEventId?.toString())) && !results.has(id)) {
        const call = fromPayloads<RunToolInput>(
          history.get(Number(done.scheduledEventId?.toString()))?.activityTaskScheduledEventAttributes?.input,
        )?.call;
        return `history records the result of tool call ${call?.name ?? '?'} at event ${id} of run ${runId}, which the export leaves out`;
      }
    }
  }
  return undefined;
}
