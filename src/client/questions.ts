/**
 * Request-info from the client: an approver asks a question about a waiting approval instead of
 * deciding it, and the requester answers; each is the `askHandoffQuestion` or
 * `answerHandoffQuestion` update, sent to the chain the approval waits in (a specialist's own chain,
 * for its approvals). The workflow's validator judges both for every client; the checks here only
 * give the same answer sooner.
 */
import type { WorkflowHandle } from '@temporalio/client';
import {
  type AnswerQuestionInput,
  type ApprovalQuestion,
  type AskQuestionInput,
  QuestionRefusedError,
} from '../common/approvalQuestions';
import type { PendingApproval } from '../common/approvals';
import { UserError } from '../common/errors';
import { answerHandoffQuestionUpdate, askHandoffQuestionUpdate } from '../common/messages';
import { toBatonError } from './decide';
import { whileWorkflowTaskFails } from './taskFailing';

export type { ApprovalQuestion } from '../common/approvalQuestions';

/** Asking about a waiting approval (`Baton.ask`). */
export interface AskOptions {
  /** Which approval; may be left out when exactly one waits in the chain. */
  approvalId?: string;
  /** Who asks: one of the approval's approvers (anyone, when it names none). */
  approver: string;
  /** The question, non-empty, at most `LIMITS.questionChars` characters. */
  question: string;
}

/** Answering the open question about a waiting approval (`Baton.answer`). */
export interface AnswerOptions {
  /** Which approval; may be left out when exactly one waits in the chain with a question open. */
  approvalId?: string;
  /** Who answers: the requester, or whoever speaks for them. */
  answerer: string;
  /** The answer, non-empty, at most `LIMITS.questionChars` characters. */
  answer: string;
}

/** The parts of a run a question needs. */
interface QuestionedRun {
  readonly handle: WorkflowHandle;
  pendingApprovals(): Promise<PendingApproval[]>;
}

/** Ask (`kind: 'ask'`) or answer a question about an approval waiting in chain `workflowId`. */
export async function sendQuestion(
  getRun: (workflowId: string) => QuestionedRun,
  workflowId: string,
  kind: 'ask' | 'answer',
  options: AskOptions | AnswerOptions,
): Promise<ApprovalQuestion> {
  const [by, text] =
    'question' in options
      ? [options.approver, options.question]
      : [(options as AnswerOptions).answerer, (options as AnswerOptions).answer];
  if (typeof by !== 'string' || by.trim() === '')
    throw new UserError(kind === 'ask' ? 'approver must name who asks' : 'answerer must name who answers');
  if (typeof text !== 'string' || text.trim() === '')
    throw new UserError(kind === 'ask' ? 'question must be a non-empty text' : 'answer must be a non-empty text');
  const waiting = await getRun(workflowId)
    .pendingApprovals()
    .catch(() => []);
  const id =
    options.approvalId ??
    onlyOne(
      workflowId,
      kind === 'answer'
        ? waiting.filter((w) => w.questions?.at(-1) && w.questions.at(-1)!.answer === undefined)
        : waiting,
      kind,
    );
  // An approval waiting in a specialist is asked about in that specialist's chain.
  const chainId = waiting.find((p) => p.handoffId === id)?.workflowId ?? workflowId;
  const args =
    kind === 'ask' ? { handoffId: id, approver: by, question: text } : { handoffId: id, answerer: by, answer: text };
  try {
    const { handle } = getRun(chainId);
    return await whileWorkflowTaskFails(() =>
      kind === 'ask'
        ? handle.executeUpdate(askHandoffQuestionUpdate, { args: [args as AskQuestionInput] })
        : handle.executeUpdate(answerHandoffQuestionUpdate, { args: [args as AnswerQuestionInput] }),
    );
  } catch (err) {
    throw toBatonError(err);
  }
}

function onlyOne(workflowId: string, waiting: PendingApproval[], kind: 'ask' | 'answer'): string {
  if (waiting.length === 1) return waiting[0]!.handoffId;
  const what = kind === 'ask' ? 'waiting approvals' : 'approvals with an open question';
  throw new QuestionRefusedError(
    '(none given)',
    waiting.length === 0
      ? `chain ${workflowId} has no ${what}`
      : `chain ${workflowId} has ${waiting.length} ${what}; name one: ${waiting.map((w) => w.handoffId).join(', ')}`,
  );
}
