/**
 * The port request-info implements (`workflows/approvals/requestInfo.ts`): judging a question an
 * approver asks about a waiting approval, or its answer, against the chain's state. The desk
 * (desk.ts, deskQuestions.ts) queues what arrives and applies the judgement at its fixed points.
 */
import type { ApprovalQuestion } from '../../src/common/approvalQuestions';
import type { PendingApproval } from '../../src/common/approvals';
import type { BatonError } from '../../src/common/errors';
import type { ChainState } from '../../src/common/state';

/** Asking a question, or answering the open one. */
export type QuestionKind = 'ask' | 'answer';

/** What becomes of an ask or an answer: refused (with the fields its record keeps), or applied as the approval's new questions. */
export type QuestionJudgement =
  | { kind: 'refused'; reason: string; error: BatonError; fields: Record<string, string> }
  | {
      kind: 'apply';
      handoffId: string;
      questions: ApprovalQuestion[];
      question: ApprovalQuestion;
      record: { type: 'approval_asked' | 'approval_answered' } & Record<string, unknown>;
    };

/** Where a question is judged: the chain's state (none before it starts), what waits in its specialists, when it arrived (ms). */
export interface QuestionBench {
  state?: ChainState;
  inSpecialist(handoffId: string): PendingApproval | undefined;
  at: number;
}

/** The rules of request-info. */
export interface QuestionRules {
  judge(kind: QuestionKind, raw: unknown, bench: QuestionBench): QuestionJudgement;
}
