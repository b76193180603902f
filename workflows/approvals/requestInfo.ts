/**
 * Request-info: an approver asks a question about a waiting approval instead of deciding, and the
 * requester answers it; the approval keeps waiting, and its decision carries the questions and
 * answers (the agent gets them with a rejection). One question is open at a time, at most
 * `LIMITS.questionsPerApproval` per approval; each within `LIMITS.questionChars`.
 *
 * Refused, and recorded as `question_refused`: malformed or oversized input, an approval that is not
 * waiting here (decided already, unknown, or waiting in a specialist: ask in its chain), an asker who
 * is not one of its approvers, a question while one is open, an answer with no question open.
 *
 * Pure: no Temporal API, no I/O.
 */
import {
  type ApprovalQuestion,
  openQuestion,
  QuestionRefusedError,
  questionSizes,
  readQuestion,
} from '../../src/common/approvalQuestions';
import { isUnreadable } from '../../src/common/arrival';
import { isRecord } from '../../src/common/check';
import { InputTooLargeError } from '../../src/common/errors';
import { boundedReason, clipText, LIMITS, sizeMessage } from '../../src/common/limits';
import type { QuestionBench, QuestionJudgement, QuestionKind, QuestionRules } from '../chain/questionPort';

/** The request-info rules the workflows run. */
export const requestInfo: QuestionRules = { judge: judgeQuestion };

/** Judge `raw`, an ask or an answer as it arrived. */
export function judgeQuestion(kind: QuestionKind, raw: unknown, bench: QuestionBench): QuestionJudgement {
  const fields = fieldsOf(kind, raw);
  const refuse = (problem: string): QuestionJudgement => {
    const reason = boundedReason(problem);
    return {
      kind: 'refused',
      reason,
      error: new QuestionRefusedError(fields.handoffId ?? '(none given)', reason),
      fields,
    };
  };
  if (isUnreadable(raw)) {
    if (raw.size)
      return {
        kind: 'refused',
        reason: boundedReason(sizeMessage(raw.size)),
        error: new InputTooLargeError([raw.size]),
        fields,
      };
    return refuse(raw.problem(kind === 'ask' ? 'the question' : 'the answer'));
  }
  const sizes = questionSizes(kind, raw);
  if (sizes.length > 0)
    return {
      kind: 'refused',
      reason: boundedReason(sizes.map(sizeMessage).join('; ')),
      error: new InputTooLargeError(sizes),
      fields,
    };
  const read = readQuestion(kind, raw);
  if ('problems' in read) return refuse(read.problems.join('; '));
  const { handoffId: id, by, text } = read;
  const s = bench.state;
  const waiting = s?.approvals.pending.find((p) => p.handoffId === id);
  if (!s || !waiting) {
    const earlier = s?.approvals.decided.find((r) => r.handoffId === id);
    if (earlier)
      return refuse(
        `approval ${id} is not waiting: it was already decided (${earlier.outcome}${earlier.approver ? ` by ${earlier.approver}` : ''})`,
      );
    const there = bench.inSpecialist(id);
    if (there?.workflowId)
      return refuse(
        `approval ${id} waits in the specialist chain ${there.workflowId}: send the ${kind === 'ask' ? 'question' : 'answer'} there`,
      );
    const ids = s?.approvals.pending.map((p) => p.handoffId) ?? [];
    return refuse(`no approval ${id} is waiting (waiting: ${ids.length > 0 ? ids.join(', ') : 'none'})`);
  }
  const questions = waiting.questions ?? [];
  const open = openQuestion(questions);
  const at = new Date(bench.at).toISOString();
  if (kind === 'ask') {
    if (waiting.approvers && !waiting.approvers.includes(by))
      return refuse(
        `${by} may not ask about approval ${id}: only its approvers may (approvers: ${waiting.approvers.join(', ')})`,
      );
    if (open)
      return refuse(
        `approval ${id} already waits for the answer to ${open.askedBy}'s question ${JSON.stringify(clipText(open.question, 120))}: answer it first`,
      );
    if (questions.length >= LIMITS.questionsPerApproval)
      return refuse(
        `approval ${id} was asked ${questions.length} questions, the limit (LIMITS.questionsPerApproval): decide it`,
      );
    const question: ApprovalQuestion = { question: text, askedBy: by, askedAt: at };
    return {
      kind: 'apply',
      handoffId: id,
      questions: [...questions, question],
      question,
      record: { type: 'approval_asked', handoffId: id, question: text, askedBy: by },
    };
  }
  if (!open)
    return refuse(
      `approval ${id} has no open question to answer${questions.length > 0 ? ` (its ${questions.length} question(s) are answered)` : ''}: an approver asks first (askHandoffQuestion)`,
    );
  const question: ApprovalQuestion = { ...open, answer: text, answeredBy: by, answeredAt: at };
  return {
    kind: 'apply',
    handoffId: id,
    questions: [...questions.slice(0, -1), question],
    question,
    record: { type: 'approval_answered', handoffId: id, question: open.question, answer: text, answeredBy: by },
  };
}

/** The fields of an ask or an answer its refusal records, each within its limit. */
function fieldsOf(kind: QuestionKind, raw: unknown): Record<string, string> {
  const d = isRecord(raw) && !isUnreadable(raw) ? raw : {};
  const by = kind === 'ask' ? d.approver : d.answerer;
  return {
    action: kind,
    ...(typeof d.handoffId === 'string' ? { handoffId: clipText(d.handoffId, LIMITS.idChars) } : {}),
    ...(typeof by === 'string' ? { by: clipText(by, LIMITS.approverChars) } : {}),
  };
}
