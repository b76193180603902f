/**
 * Typed rejection reasons: the codes a team lets approvers give with a rejection
 * (`rejectionReasons` on the Team), how a rejection's code is checked against them, and how a
 * rejection reaches the agent — as JSON data it can act on, not prose.
 *
 * Workflow-safe: no I/O.
 */
import type { ApprovalQuestion } from './approvalQuestions';
import { LIMITS } from './limits';

/** A reason an approver may give for a rejection: a stable `code` programs act on, a `label` people read. */
export interface RejectionReason {
  /** Lower case letters, digits, `_`, `-` and `.`, starting with a letter, e.g. `over_limit`. */
  code: string;
  /** What the code means, e.g. `Over the refund limit`. */
  label: string;
}

const CODE = /^[a-z][a-z0-9_.-]*$/;

/** Problems with a team's `rejectionReasons` (at `at`): each a code and a label, codes unique, within their limits. */
export function rejectionReasonsProblems(value: unknown, at = 'rejectionReasons'): string[] {
  if (!Array.isArray(value)) return [`${at} must be a list of {code, label}, got ${typeof value}`];
  if (value.length === 0) return [`${at} must list at least one reason (leave it out for free-text reasons)`];
  if (value.length > LIMITS.rejectionReasons)
    return [`${at} lists ${value.length} reasons; the limit is ${LIMITS.rejectionReasons}`];
  const problems: string[] = [];
  const seen = new Set<string>();
  value.forEach((r: unknown, i) => {
    const { code, label } = (typeof r === 'object' && r !== null ? r : {}) as Record<string, unknown>;
    if (typeof code !== 'string' || !CODE.test(code) || code.length > LIMITS.reasonCodeChars) {
      problems.push(
        `${at}[${i}].code must be lower case letters, digits, "_", "-" or "." starting with a letter, at most ${LIMITS.reasonCodeChars} characters, got ${JSON.stringify(code)}`,
      );
    } else if (seen.has(code)) problems.push(`${at}[${i}].code "${code}" is listed twice`);
    else seen.add(code);
    if (typeof label !== 'string' || label.trim() === '' || label.length > LIMITS.reasonLabelChars)
      problems.push(`${at}[${i}].label must be a non-empty string of at most ${LIMITS.reasonLabelChars} characters`);
  });
  return problems;
}

/** The codes as an error lists them: `over_limit (Over the refund limit), policy (Against policy)`. */
export function validReasons(reasons: readonly RejectionReason[]): string {
  return reasons.map((r) => `${r.code} (${r.label})`).join(', ');
}

/**
 * Why a rejection's `reason` cannot apply where the team defines `reasons`: not one of their codes.
 * Without defined reasons any text goes; a rejection may also give no reason.
 */
export function reasonProblem(
  reasons: readonly RejectionReason[] | undefined,
  reason: string | undefined,
): string | undefined {
  if (!reasons || reasons.length === 0 || reason === undefined) return undefined;
  if (reasons.some((r) => r.code === reason)) return undefined;
  return `unknown rejection reason ${JSON.stringify(reason.length > 80 ? `${reason.slice(0, 79)}…` : reason)}: give one of the team's codes: ${validReasons(reasons)}`;
}

/** The label of `code` among `reasons`. */
export function reasonLabel(
  reasons: readonly RejectionReason[] | undefined,
  code: string | undefined,
): string | undefined {
  return code === undefined ? undefined : reasons?.find((r) => r.code === code)?.label;
}

/** What a rejection tells the agent as data: who, the typed reason, and the questions asked and answered on the way. */
export interface RejectionData {
  outcome: 'rejected';
  approver?: string;
  reason?: { code: string; label: string };
  questions?: { question: string; answer?: string }[];
}

/**
 * A rejection's data as JSON text for the model, when it has typed parts (a reason code, questions);
 * `undefined` for a plain rejection, which keeps the words it always had.
 */
export function rejectionJson(r: {
  approver?: string;
  reason?: string;
  reasonLabel?: string;
  questions?: ApprovalQuestion[];
}): string | undefined {
  if (r.reasonLabel === undefined && !r.questions?.length) return undefined;
  const data: RejectionData = {
    outcome: 'rejected',
    ...(r.approver !== undefined ? { approver: r.approver } : {}),
    ...(r.reason !== undefined && r.reasonLabel !== undefined
      ? { reason: { code: r.reason, label: r.reasonLabel } }
      : {}),
    ...(r.questions?.length
      ? {
          questions: r.questions.map((q) => ({
            question: q.question,
            ...(q.answer !== undefined ? { answer: q.answer } : {}),
          })),
        }
      : {}),
  };
  return JSON.stringify(data);
}
