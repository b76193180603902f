/**
 * The chain state's approvals: what waits, what was decided, how far a waiting one's policy got and
 * the votes a staged one took — the approval events {@link reduce} (state.ts) folds.
 *
 * Pure: no Temporal API, no I/O.
 */
import type { ApprovalQuestion } from '../../src/common/approvalQuestions';
import type { ApprovalRecord, ApprovalVote, PendingApproval, PolicyProgress } from '../../src/common/approvals';
import type { ControlState } from '../../src/common/controls';
import type { ChainState } from '../../src/common/state';
import { count } from './controlState';
import { toolCallKey } from './turn';

/** Something that happened to an approval of the chain. */
export type ApprovalEvent =
  | { type: 'approval_requested'; pending: PendingApproval }
  | { type: 'approval_decided'; record: ApprovalRecord }
  | { type: 'approval_progressed'; handoffId: string; progress: PolicyProgress; approvers?: string[] }
  /** A staged approval took a vote: its votes, current stage and who may decide now (`votes.ts`). */
  | { type: 'approval_voted'; handoffId: string; votes: ApprovalVote[]; stage: number; approvers: string[] }
  /** An approver asked about it, or its question was answered (request-info). */
  | { type: 'approval_questioned'; handoffId: string; questions: ApprovalQuestion[] };

const TOOL_OUTCOME = {
  approved: 'tool_calls_approved',
  rejected: 'tool_calls_rejected',
  timed_out: 'tool_approvals_timed_out',
  voted: undefined,
} as const;

/** The state after the approval event `event`. */
export function reduceApproval(s: ChainState, event: ApprovalEvent): ChainState {
  switch (event.type) {
    case 'approval_requested': {
      const tool = event.pending.tool;
      const toolCalls = tool
        ? { toolCalls: { ...s.approvals.toolCalls, [event.pending.handoffId]: toolCallKey(tool) } }
        : {};
      return {
        ...counted(s, tool ? 'tool_approvals_requested' : undefined),
        approvals: { ...s.approvals, pending: [...s.approvals.pending, event.pending], ...toolCalls },
      };
    }
    case 'approval_decided':
      return {
        ...counted(s, event.record.tool ? TOOL_OUTCOME[event.record.outcome] : undefined),
        approvals: {
          ...s.approvals,
          pending: s.approvals.pending.filter((p) => p.handoffId !== event.record.handoffId),
          decided: [...s.approvals.decided, event.record],
        },
      };
    case 'approval_progressed':
      return changed(s, event.handoffId, {
        progress: event.progress,
        ...(event.approvers ? { approvers: event.approvers } : {}),
      });
    case 'approval_voted':
      return changed(s, event.handoffId, { votes: event.votes, stage: event.stage, approvers: event.approvers });
    case 'approval_questioned':
      return changed(s, event.handoffId, { questions: event.questions });
  }
}

function changed(s: ChainState, handoffId: string, change: Partial<PendingApproval>): ChainState {
  return {
    ...s,
    approvals: {
      ...s.approvals,
      pending: s.approvals.pending.map((p) => (p.handoffId === handoffId ? { ...p, ...change } : p)),
    },
  };
}

/** The state with one more `kind` in the controls' counters (chains with controls). */
export function counted(s: ChainState, kind: keyof NonNullable<ControlState['counters']> | undefined): ChainState {
  return kind && s.controls ? { ...s, controls: { ...s.controls, counters: count(s.controls.counters, kind) } } : s;
}
