/**
 * What a handoff call means: reading it, and what a decision on it (or its absence) leads to.
 *
 * Pure: no Temporal API, no I/O.
 */
import { expiredHandoffAnswer, handedOffAnswer, rejectedHandoffAnswer } from '../../src/common/answers';
import type { ApprovalRecord } from '../../src/common/approvals';
import { ApprovalTimeoutError } from '../../src/common/errors';
import { extractHandoff, type HandoffResult } from '../../src/common/handoff';
import type { ToolCall } from '../../src/common/model';

/** A handoff call read: the handoff it asks for, or what is wrong with its arguments. */
export type HandoffRequest = { kind: 'handoff'; handoff: HandoffResult } | { kind: 'invalid'; answer: string };

export function readHandoff(call: ToolCall, from: string): HandoffRequest {
  const parsed = extractHandoff(call, from);
  if (typeof parsed === 'string' || parsed === null) return { kind: 'invalid', answer: `Error: ${parsed ?? 'not a handoff call'}` };
  return { kind: 'handoff', handoff: parsed };
}

/** Where a handoff stands once decided: the answer its call gets and, when it goes ahead, the handoff. */
export interface HandoffOutcome {
  answer: string;
  handoff?: HandoffResult;
  approval?: ApprovalRecord;
}

/** What a person's decision, or its absence, means for the handoff. */
export function decidedOutcome(h: HandoffResult, approval: ApprovalRecord): HandoffOutcome {
  if (approval.outcome === 'approved') return { answer: handedOffAnswer(h.to, { approver: approval.approver }), handoff: h, approval };
  if (approval.outcome === 'rejected') return { answer: rejectedHandoffAnswer(h.to, approval.approver, approval.reason), approval };
  const onTimeout = approval.onTimeout ?? 'reject';
  if (onTimeout === 'approve') return { answer: handedOffAnswer(h.to, { onTimeout: true }), handoff: h, approval };
  if (onTimeout === 'fail') throw new ApprovalTimeoutError(approval.handoffId, h.from, h.to, String(approval.timeout));
  return { answer: expiredHandoffAnswer(h.to), approval };
}
