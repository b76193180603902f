/**
 * Checks of the approvals a carried state holds: the record of a decided approval (in a handoff
 * record or among a chain's decided ones) and an approval still waiting, with the tool call it
 * holds back (stateChecks.ts).
 *
 * Workflow-safe: no I/O.
 */
import { approvalQuestionsCheck } from './approvalQuestions';
import { rejectionReasonsProblems } from './approvalReasons';
import type { ApprovalRecord, PendingApproval, PolicyProgress, StageState } from './approvals';
import { approvalVoteCheck, decisionIdentity } from './approvalVoteChecks';
import { approvalTimingCheck } from './approvalTiming';
import {
  arrayOf,
  boolean,
  type Check,
  count,
  either,
  isoTime,
  names,
  nonEmptyString,
  oneOf,
  shapeOf,
  string,
} from './check';
import type { ToolCallUnderApproval } from './controls';

/** Problems with the record of a decided approval. */
export const approvalRecordCheck: Check<ApprovalRecord> = shapeOf<ApprovalRecord>()(
  {
    handoffId: nonEmptyString,
    // A decided record is never `voted` (only an update's answer to one vote is).
    outcome: oneOf(['approved', 'rejected', 'timed_out']) as Check<ApprovalRecord['outcome']>,
    approver: string,
    comment: string,
    reason: string,
    reasonLabel: string,
    questions: approvalQuestionsCheck,
    requestedAt: isoTime,
    decidedAt: isoTime,
    via: oneOf(['signal', 'update', 'timeout']),
    onTimeout: oneOf(['reject', 'approve', 'fail']),
    timeout: either(string, count),
    tool: string,
    editedArguments: string,
    argumentsDigest: string,
    identity: decisionIdentity,
    signature: string,
    escalationStep: count,
    votes: arrayOf(approvalVoteCheck, 'votes'),
    onBehalfOf: nonEmptyString,
  },
  [
    'approver',
    'comment',
    'reason',
    'reasonLabel',
    'questions',
    'onTimeout',
    'timeout',
    'tool',
    'editedArguments',
    'argumentsDigest',
    'identity',
    'signature',
    'escalationStep',
    'votes',
    'onBehalfOf',
  ],
);

const toolCallUnderApproval = shapeOf<ToolCallUnderApproval>()({
  name: nonEmptyString,
  arguments: string,
  toolCallId: string,
  callHash: nonEmptyString,
});

/** Problems with an approval a specialist reports waiting, or a carried state holds. */
export const pendingApprovalCheck: Check<PendingApproval> = shapeOf<PendingApproval>()(
  {
    handoffId: nonEmptyString,
    from: nonEmptyString,
    to: nonEmptyString,
    message: string,
    requestedAt: isoTime,
    expiresAt: isoTime,
    approvers: names,
    timeout: either(string, count),
    onTimeout: oneOf(['reject', 'approve', 'fail']),
    workflowId: string,
    tool: toolCallUnderApproval,
    requireSignature: boolean,
    dueAt: isoTime,
    policy: approvalTimingCheck,
    progress: shapeOf<PolicyProgress>()({ reminders: count, steps: count, overdue: boolean }),
    stages: arrayOf(shapeOf<StageState>()({ approvers: names, needed: count }), 'stages'),
    stage: count,
    votes: arrayOf(approvalVoteCheck, 'votes'),
    rejectionReasons: (v, at) => rejectionReasonsProblems(v, at),
    questions: approvalQuestionsCheck,
  },
  [
    'expiresAt',
    'approvers',
    'timeout',
    'workflowId',
    'tool',
    'requireSignature',
    'dueAt',
    'policy',
    'progress',
    'stages',
    'stage',
    'votes',
    'rejectionReasons',
    'questions',
  ],
);
