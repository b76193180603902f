/**
 * How the approval desk applies a question or an answer it queued (request-info): judged by the
 * run's {@link QuestionRules}, then kept on the waiting approval and put on the record, or refused on
 * the record; the update that sent it answered either way. Runs replaying a history from before
 * request-info (no `baton-approval-questions` marker) refuse it, as their code did.
 */
import type { ApprovalQuestion } from '../../src/common/approvalQuestions';
import type { PendingApproval } from '../../src/common/approvals';
import { QuestionRefusedError } from '../../src/common/approvalQuestions';
import { BatonError, toApplicationFailure } from '../../src/common/errors';
import { Patches } from '../../src/common/patches';
import type { ChainState } from '../../src/common/state';
import type { ChainEffects } from './effects';
import type { QuestionJudgement, QuestionKind, QuestionRules } from './questionPort';

export type { QuestionRules } from './questionPort';
import type { ChainEvent } from './state';

/** A question or answer as the desk queued it. */
export interface QueuedQuestion {
  kind: 'question';
  ask: QuestionKind;
  raw: unknown;
  at: number;
  answer: (o: { question: ApprovalQuestion } | { refusal: Error }) => void;
}

/** What the desk lends to judge and apply questions. */
export interface QuestionParts {
  /** @default none: every question is refused */
  rules: QuestionRules | undefined;
  effects: ChainEffects;
  /** The chain's state; before the chain is attached, what its start carries. */
  state(): ChainState | undefined;
  inSpecialist(handoffId: string): PendingApproval | undefined;
  apply(e: ChainEvent): void;
  publish(e: Record<string, unknown>): void;
  refuse(e: { type: string } & Record<string, unknown>): void;
}

/** A desk's questions: judged against its chain, validated for updates, applied when queued. */
export interface QuestionDesk {
  judge(kind: QuestionKind, raw: unknown, at: number): QuestionJudgement;
  /** The update validator: refuse at once what cannot apply now, before anything is written. */
  validate(kind: QuestionKind, raw: unknown): void;
  /** The run takes questions (the patch, decided at the first one applied). */
  enabled(): boolean;
  apply(e: ChainEvent): void;
  publish(e: Record<string, unknown>): void;
  refuse(e: { type: string } & Record<string, unknown>): void;
}

/** The {@link QuestionDesk} made of a desk's `parts`. */
export function questionDesk(parts: QuestionParts): QuestionDesk {
  const judge = (kind: QuestionKind, raw: unknown, at: number): QuestionJudgement => {
    if (!parts.rules) {
      const reason = 'this chain takes no questions about approvals: decide the approval instead';
      return { kind: 'refused', reason, error: new QuestionRefusedError('(any)', reason), fields: { action: kind } };
    }
    const state = parts.state();
    return parts.rules.judge(kind, raw, { ...(state ? { state } : {}), inSpecialist: parts.inSpecialist, at });
  };
  return {
    judge,
    validate(kind, raw) {
      const judged = judge(kind, raw, parts.effects.now());
      if (judged.kind === 'refused')
        throw judged.error instanceof BatonError ? toApplicationFailure(judged.error) : judged.error;
    },
    enabled: () => parts.effects.patched(Patches.APPROVAL_QUESTIONS),
    apply: parts.apply,
    publish: parts.publish,
    refuse: parts.refuse,
  };
}

/** Apply the queued `entry` through `desk`. */
export function applyQuestion(entry: QueuedQuestion, desk: QuestionDesk): void {
  const judged = desk.judge(entry.ask, entry.raw, entry.at);
  const refused = (reason: string, error: Error, fields: Record<string, string>) => {
    desk.refuse({ type: 'question_refused', ...fields, reason, via: 'update', at: new Date(entry.at).toISOString() });
    entry.answer({ refusal: error });
  };
  if (judged.kind === 'refused') return refused(judged.reason, judged.error, judged.fields);
  if (!desk.enabled()) {
    const reason = 'this chain started before baton took questions about approvals: decide the approval instead';
    return refused(reason, new QuestionRefusedError(judged.handoffId, reason), {
      action: entry.ask,
      handoffId: judged.handoffId,
    });
  }
  desk.apply({ type: 'approval_questioned', handoffId: judged.handoffId, questions: judged.questions });
  desk.publish(judged.record);
  entry.answer({ question: judged.question });
}
