/**
 * Where a turn is taken up again when it cannot go on where it stands (a conversation's turn stranded
 * by a deploy and moved onto the current team): the state at the last step begun, the model's
 * answer acted on again without asking the model, and every decision people made since standing.
 * The same point a replay rebuilds from history (`src/client/resume.ts`), here from the run's memory.
 *
 * Pure: no Temporal API, no I/O.
 */
import type { ApprovalRecord } from '../../src/common/approvals';
import type { ChainState } from '../../src/common/state';
import type { Chain, StepMark } from './state';
import { callHash, toolCallKey } from './turn';

/** The chain at its last step mark, with the approvals as they are now; the chain as it is when no step was marked. */
export function restartPoint(chain: Chain): ChainState {
  const { mark, state: now } = chain;
  if (!mark) return now;
  // Decisions are kept whole: one awaited at the mark (a handoff's) is found decided.
  const base: ChainState = { ...mark.state, approvals: now.approvals };
  if (!mark.response) return base;
  const decided = decisionsSince(mark, now);
  return {
    ...base,
    pendingResponse: mark.response,
    ...(decided ? { decidedCalls: { ...mark.state.decidedCalls, ...decided } } : {}),
  };
}

/** Decisions people made on the tool calls of the marked answer since the mark, by tool call id. */
function decisionsSince(mark: StepMark, now: ChainState): ChainState['decidedCalls'] {
  const before = new Set(mark.state.approvals.decided.map((d) => d.handoffId));
  const keys = now.approvals.toolCalls ?? {};
  const byKey = new Map<string, ApprovalRecord>();
  for (const d of now.approvals.decided) {
    const key = keys[d.handoffId];
    // A wait that expired is no one's decision: the call is asked again.
    if (key !== undefined && !before.has(d.handoffId) && d.outcome !== 'timed_out' && !byKey.has(key))
      byKey.set(key, d);
  }
  const decided: NonNullable<ChainState['decidedCalls']> = {};
  for (const call of mark.response?.toolCalls ?? []) {
    const key = toolCallKey(call);
    const record = byKey.get(key);
    if (!record) continue;
    // The same call twice in the answer was asked once: the decision goes with the first, as it did.
    byKey.delete(key);
    decided[call.id] = { callHash: callHash(call), record };
  }
  return Object.keys(decided).length > 0 ? decided : undefined;
}
