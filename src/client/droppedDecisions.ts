/**
 * Which decisions people took a Temporal reset would drop: what `baton replay` checks before it
 * resets a failed chain (`replay.ts`).
 */
import { recordedApprovalEvent } from '../audit/history';
import { ENTRY_SOURCE } from '../common/authority/policy';
import { approveHandoffSignal, rejectHandoffSignal } from '../common/messages';
import type { HandoffRunInput } from '../common/run';
import { fromPayloads, type HistoryEvent } from '../payloads/read';

/**
 * The approvals a reset to `resetEventId` would leave waiting again though a person decided them:
 * asked in the history the reset keeps, decided in the workflow task it runs again or later (an
 * update's decision, or a signal's that came in while that task ran). The reset reapplies neither,
 * and the approval would wait again under its first deadline, so its policy could turn a person's
 * rejection into an approval. A deadline's own outcome is not a person's decision and is left out.
 */
export function droppedDecisions(events: HistoryEvent[], resetEventId: number): DroppedDecision[] {
  const point = events.find((e) => Number(e.eventId) === resetEventId);
  const kept = Number(point?.workflowTaskCompletedEventAttributes?.startedEventId ?? resetEventId);
  // Approvals it was handed still waiting (a continued run) were asked before any point; true for an entry's.
  const handed = fromPayloads<HandoffRunInput>(events[0]?.workflowExecutionStartedEventAttributes?.input)?.resume;
  const asked = new Map<string, boolean>(
    (handed?.approvals.pending ?? []).map((p) => [p.handoffId, p.from === ENTRY_SOURCE] as const),
  );
  const resent = signalledUpTo(events, kept);
  // Approvals a decision was refused on, or voted on: which signal decided them is not sure.
  const unsure = new Set<string>();
  const dropped: DroppedDecision[] = [];
  for (const e of events) {
    const recorded = recordedApprovalEvent(e);
    const handoffId = typeof recorded?.handoffId === 'string' ? recorded.handoffId : undefined;
    if (!recorded || !handoffId) continue;
    if (recorded.type === 'decision_refused' || recorded.type === 'approval_voted') unsure.add(handoffId);
    if (recorded.type === 'approval_requested' && Number(e.eventId) <= kept)
      asked.set(handoffId, recorded.from === ENTRY_SOURCE);
    const { outcome, approver } = recorded as { outcome?: unknown; approver?: unknown };
    if (recorded.type !== 'approval_decided' || Number(e.eventId) <= kept || !asked.has(handoffId)) continue;
    if (outcome !== 'approved' && outcome !== 'rejected') continue;
    // Signalled before the point, it is delivered again as the reset runs that task again (the one
    // signal of that decision there was, with none refused or counted as a vote: else it resumes).
    const entry = asked.get(handoffId)!;
    const signalled = `${handoffId}\n${String(approver)}\n${outcome}`;
    if (!entry && recorded.via === 'signal' && resent.has(signalled) && !unsure.has(handoffId)) continue;
    dropped.push({
      handoffId,
      outcome,
      entry,
      ...(typeof approver === 'string' ? { approver } : {}),
    });
  }
  return dropped;
}

/** A person's decision a reset would drop. */
export interface DroppedDecision {
  handoffId: string;
  outcome: 'approved' | 'rejected';
  approver?: string;
  /** It decided the chain's entry at its first agent. */
  entry: boolean;
}

/** The decisions signalled at or before event `kept`, as `<approval id>\n<approver>\n<outcome>`. */
function signalledUpTo(events: HistoryEvent[], kept: number): Set<string> {
  const outcomes = { [approveHandoffSignal.name]: 'approved', [rejectHandoffSignal.name]: 'rejected' };
  const out = new Set<string>();
  for (const e of events) {
    const s = e.workflowExecutionSignaledEventAttributes;
    const outcome = s?.signalName ? outcomes[s.signalName] : undefined;
    if (Number(e.eventId) > kept || !outcome) continue;
    const sent = fromPayloads<{ handoffId?: unknown; approver?: unknown }>(s!.input);
    if (typeof sent?.handoffId === 'string') out.add(`${sent.handoffId}\n${String(sent.approver)}\n${outcome}`);
  }
  return out;
}
