/**
 * Request-info on a waiting approval: an approver asks a question instead of deciding
 * (`askHandoffQuestion`), the requester answers it (`answerHandoffQuestion`), and the approval goes
 * on waiting with the answer attached. What the two updates take and what they record.
 *
 * Workflow-safe: no I/O.
 */
import { arrayOf, type Check, isoTime, isRecord, shapeOf, string } from './check';
import { UserError } from './errors';
import { charsOver, LIMITS, type SizeProblem } from './limits';

/** A question an approver asked about a waiting approval, and its answer once given. */
export interface ApprovalQuestion {
  question: string;
  /** The approver who asked. */
  askedBy: string;
  /** ISO 8601, workflow time. */
  askedAt: string;
  answer?: string;
  /** Who answered: the requester, or whoever speaks for them. */
  answeredBy?: string;
  /** ISO 8601, workflow time. */
  answeredAt?: string;
}

/** Input of the `askHandoffQuestion` update. */
export interface AskQuestionInput {
  handoffId: string;
  /** Who asks: one of the approval's approvers (anyone, when it names none). */
  approver: string;
  /** Non-empty, at most `LIMITS.questionChars` characters. */
  question: string;
}

/** Input of the `answerHandoffQuestion` update. */
export interface AnswerQuestionInput {
  handoffId: string;
  /** Who answers. */
  answerer: string;
  /** Non-empty, at most `LIMITS.questionChars` characters. */
  answer: string;
}

/** What was asked or answered, read from outside: which approval, who, the text. */
export interface QuestionArrival {
  kind: 'ask' | 'answer';
  handoffId: string;
  by: string;
  text: string;
}

const FIELDS = { ask: { by: 'approver', text: 'question' }, answer: { by: 'answerer', text: 'answer' } } as const;

/** The fields over their limits in an ask or an answer. */
export function questionSizes(kind: 'ask' | 'answer', raw: unknown): SizeProblem[] {
  if (!isRecord(raw)) return [];
  const f = FIELDS[kind];
  return [
    ...charsOver('handoffId', raw.handoffId, LIMITS.idChars),
    ...charsOver(f.by, raw[f.by], LIMITS.approverChars),
    ...charsOver(f.text, raw[f.text], LIMITS.questionChars),
  ];
}

/** An ask or an answer as the workflow takes it, or the problems that refuse it (sizes checked apart). */
export function readQuestion(kind: 'ask' | 'answer', raw: unknown): QuestionArrival | { problems: string[] } {
  const f = FIELDS[kind];
  const shape = `{"handoffId", "${f.by}", "${f.text}"}`;
  if (!isRecord(raw)) return { problems: [`send ${shape} as a JSON object`] };
  const problems: string[] = [];
  for (const key of ['handoffId', f.by] as const) {
    if (typeof raw[key] !== 'string' || (raw[key] as string).trim() === '')
      problems.push(`"${key}" must be a non-empty string`);
  }
  if (typeof raw[f.text] !== 'string' || (raw[f.text] as string).trim() === '')
    problems.push(`"${f.text}" must be a non-empty string (an empty ${f.text} is not taken)`);
  const extra = Object.keys(raw).filter((k) => k !== 'handoffId' && k !== f.by && k !== f.text);
  if (extra.length > 0)
    problems.push(
      `unknown field(s) ${extra.map((k) => `"${k.slice(0, 40)}"`).join(', ')} (valid: handoffId, ${f.by}, ${f.text})`,
    );
  if (problems.length > 0) return { problems };
  return { kind, handoffId: raw.handoffId as string, by: raw[f.by] as string, text: raw[f.text] as string };
}

/** The question still waiting for its answer, if any. */
export function openQuestion(questions: readonly ApprovalQuestion[] | undefined): ApprovalQuestion | undefined {
  const last = questions?.at(-1);
  return last && last.answer === undefined ? last : undefined;
}

/** A question about an approval (or its answer) that cannot apply: nothing waits, not an approver, no open question, empty or too many. */
export class QuestionRefusedError extends UserError<{ handoffId: string; reason: string }> {
  declare readonly handoffId: string;
  declare readonly reason: string;
  constructor(handoffId: string, reason: string) {
    super(`Question on approval ${handoffId} refused: ${reason}`, { handoffId, reason });
  }
}

/** Problems with the questions a carried approval or record holds. */
export const approvalQuestionsCheck: Check<ApprovalQuestion[]> = arrayOf(
  shapeOf<ApprovalQuestion>()(
    { question: string, askedBy: string, askedAt: isoTime, answer: string, answeredBy: string, answeredAt: isoTime },
    ['answer', 'answeredBy', 'answeredAt'],
  ),
  'questions',
);
