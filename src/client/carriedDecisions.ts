/**
 * What a replay's rebuilt state carries of the decisions people and operators took in the run it
 * continues (`resume.ts`): the decisions on the calls of the answer acted on again, whether the
 * chain was let in at its entry, and what a continued run that made no model call took in.
 */
import type { ChainEvent } from '../../workflows/chain/state';
import { callHash, carriedHandoffKey } from '../../workflows/chain/turn';
import { ENTRY_SOURCE } from '../common/authority/policy';
import type { ModelResponse, ToolCall } from '../common/model';
import type { ChainState } from '../common/state';

/** A chain event with the history event it came from. */
export interface Recorded {
  eventId: number;
  event: ChainEvent;
}

/** What a continued run that made no model call took in, folded into the state it was handed when it is replayed. */
export const HOLDS_FROM_WHERE_APPLIED = new Set<ChainEvent['type']>([
  'approval_decided',
  'approval_progressed',
  'approval_voted',
  'approval_questioned',
  'overridden',
  'policy_updated',
]);

/** Whether the chain was let in at its entry agent: its entry's approval approved, by a person or at its deadline. */
export function entryApproved(recorded: Recorded[]): boolean {
  const entry = recorded.find((r) => r.event.type === 'approval_requested' && r.event.pending.from === ENTRY_SOURCE);
  if (entry?.event.type !== 'approval_requested') return false;
  const id = entry.event.pending.handoffId;
  return recorded.some(
    ({ event: e }) =>
      e.type === 'approval_decided' &&
      e.record.handoffId === id &&
      (e.record.outcome === 'approved' || (e.record.outcome === 'timed_out' && e.record.onTimeout === 'approve')),
  );
}

/**
 * Decisions people made on the calls of `response` (recorded after it): its tool calls', by tool call
 * id, and its handoff call's (the handoff approval asked after it), with the target it was asked for.
 */
export function decisionsOn(
  response: ModelResponse,
  later: Recorded[],
  handoff?: ToolCall,
): ChainState['decidedCalls'] {
  const ids = new Set(response.toolCalls.map((c) => c.id));
  const asked = new Map<string, { key: string; callHash: string; to?: string }>();
  const decided: NonNullable<ChainState['decidedCalls']> = {};
  for (const { event } of later) {
    const { pending } = event.type === 'approval_requested' ? event : { pending: undefined };
    if (pending?.tool && ids.has(pending.tool.toolCallId))
      asked.set(pending.handoffId, { key: pending.tool.toolCallId, callHash: pending.tool.callHash });
    if (pending && !pending.tool && pending.from !== ENTRY_SOURCE && handoff) {
      asked.set(pending.handoffId, { key: carriedHandoffKey(handoff), callHash: callHash(handoff), to: pending.to });
      handoff = undefined;
    }
    if (event.type === 'approval_decided') {
      const call = asked.get(event.record.handoffId);
      // A wait that expired is no one's decision: the resumed run asks again.
      if (call && event.record.outcome !== 'timed_out')
        decided[call.key] = {
          callHash: call.callHash,
          record: event.record,
          ...(call.to !== undefined ? { to: call.to } : {}),
        };
    }
  }
  return Object.keys(decided).length > 0 ? decided : undefined;
}
