/**
 * The desk's mail: what the signal and update handlers of a chain queue for its approval desk
 * (decisions, forwarded decisions and their outcomes, overrides, specialists' reports), in arrival
 * order, until the loop applies it. A decision sent by update resolves once it has been applied.
 */
import type { ApprovalQuestion } from '../../src/common/approvalQuestions';
import type { ApprovalRecord, HandoffDecision } from '../../src/common/approvals';
import { BatonError, toApplicationFailure } from '../../src/common/errors';
import { withDecision } from './decisions';
import type { QueuedQuestion } from './deskQuestions';
import type { ChainEffects } from './effects';
import type { QuestionKind } from './questionPort';
import type { Answer } from './specialists';

type Via = 'signal' | 'update';

/** What arrived, with when (workflow time) where it matters. */
export type Received =
  | { kind: 'decision'; raw: unknown; via: Via; at: number; answer?: Answer }
  | { kind: 'forwarded'; raw: unknown; at: number }
  | { kind: 'forward_outcome'; raw: unknown }
  | { kind: 'forward_failed'; forwardId?: string; raw: HandoffDecision; via: Via; reason: string; at: number }
  | { kind: 'overrides'; raw: unknown; at: number }
  | { kind: 'child_report'; raw: unknown }
  | QueuedQuestion;

/** The queue the handlers fill; {@link ApprovalDesk} (desk.ts) takes it in order. */
export class DeskMail {
  protected readonly inbox: Received[] = [];
  /** Updates answered by the last drain whose handlers have not returned yet. */
  protected returning = 0;

  constructor(protected readonly effects: ChainEffects) {}

  /** A decision sent by signal: queued for the loop. */
  receive(raw: unknown, decision: HandoffDecision['decision']): void {
    this.inbox.push({ kind: 'decision', raw: withDecision(raw, decision), via: 'signal', at: this.effects.now() });
  }

  /**
   * A decision sent by update: queued; resolves with its record once the loop has applied it (or
   * the specialist it was forwarded to has).
   */
  async receiveUpdate(raw: unknown): Promise<ApprovalRecord> {
    try {
      return await new Promise<ApprovalRecord>((resolve, reject) => {
        const answer: Answer = (o) => {
          this.returning++;
          if ('record' in o) resolve(o.record);
          else reject(toApplicationFailure(o.refusal));
        };
        this.inbox.push({ kind: 'decision', raw, via: 'update', at: this.effects.now(), answer });
      });
    } finally {
      this.returning--;
    }
  }

  /** A question about a waiting approval, or its answer (request-info), sent by update: queued; resolves once applied. */
  async receiveQuestion(kind: QuestionKind, raw: unknown): Promise<ApprovalQuestion> {
    try {
      return await new Promise<ApprovalQuestion>((resolve, reject) => {
        const answer: QueuedQuestion['answer'] = (o) => {
          this.returning++;
          if ('question' in o) resolve(o.question);
          else reject(o.refusal instanceof BatonError ? toApplicationFailure(o.refusal) : o.refusal);
        };
        this.inbox.push({ kind: 'question', ask: kind, raw, at: this.effects.now(), answer });
      });
    } finally {
      this.returning--;
    }
  }

  /** A decision a calling chain forwarded for an approval waiting here: queued for the loop. */
  receiveForwarded(raw: unknown): void {
    this.inbox.push({ kind: 'forwarded', raw, at: this.effects.now() });
  }

  /** How a decision this chain forwarded ended in the specialist: queued for the loop. */
  receiveForwardOutcome(raw: unknown): void {
    this.inbox.push({ kind: 'forward_outcome', raw });
  }

  /** A specialist's report of the approvals waiting in it: queued for the loop. */
  receiveChildReport(raw: unknown): void {
    this.inbox.push({ kind: 'child_report', raw });
  }

  /** Overrides sent by signal: queued for the loop. */
  receiveOverrides(raw: unknown): void {
    this.inbox.push({ kind: 'overrides', raw, at: this.effects.now() });
  }

  /** Whether anything waits in the queue. */
  get hasMail(): boolean {
    return this.inbox.length > 0;
  }
}
