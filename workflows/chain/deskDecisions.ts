/**
 * How the approval desk applies a decision it queued: judged against the chain (or what the run's
 * start carries), then refused on the record, forwarded to the specialist its approval waits in
 * (one per approval and drain), counted as a vote, or settled; the update that sent it answered
 * either way. A forwarded decision is judged here like any, and one that could not be forwarded is
 * refused on the record.
 */
import type { ApprovalRecord, PendingApproval } from '../../src/common/approvals';
import { ApprovalRefusedError } from '../../src/common/errors';
import { boundedReason } from '../../src/common/limits';
import type { ChainState } from '../../src/common/state';
import { type Judgement, judgeDecision, recordOf, refusedFields } from './decisions';
import type { Received } from './deskMail';
import type { ChainEffects } from './effects';
import { passkeysIn } from './passkeys';
import type { Refusal } from './refusals';
import type { Specialists } from './specialists';
import type { ChainEvent } from './state';
import { takeVote } from './votes';

/** What the desk lends to judge and apply decisions. */
export interface DecisionParts {
  effects: ChainEffects;
  specialists: Specialists;
  /** Decisions are held to `LIMITS` (see `DeskOptions.bounded`). */
  bounded: boolean;
  /** Decisions' signatures are verified and required (see `DeskOptions.signatures`). */
  signatures: boolean;
  /** The chain's state; before the chain is attached, what its start carries. */
  state(): ChainState | undefined;
  apply(e: ChainEvent): void;
  publish(e: Record<string, unknown>): void;
  refuse(r: Refusal): void;
  /** Close a waiting approval with its outcome, and publish it. */
  settle(waiting: PendingApproval, record: ApprovalRecord): void;
  /** The approvals a decision was forwarded for in the drain under way (runs that tally their drains). */
  forwarded(): Set<string> | undefined;
  /** Queue what arrives for the drain to take. */
  queue(entry: Received): void;
}

/** The decisions of one desk: judged, and applied as the drain takes them. */
export class DeskDecisions {
  constructor(private readonly parts: DecisionParts) {}

  /** What becomes of a decision: refused, applied here, or forwarded to the specialist its approval waits in. */
  judge(raw: unknown, at: number): Judgement {
    const { effects, specialists } = this.parts;
    const signatures = this.parts.signatures ? { signatures: { workflowId: effects.workflowId, at } } : {};
    // A decision that came with the run's start, before the chain is attached: what the start carries waits.
    const state = this.parts.state();
    return judgeDecision(raw, {
      ...(state ? { state } : {}),
      inSpecialist: (id) => specialists.find(id),
      bounded: this.parts.bounded,
      ...signatures,
      grants: { workflowId: effects.workflowId, at },
    });
  }

  /** Apply a queued decision: refused, forwarded, voted or settled, and its update answered. */
  decide(entry: Extract<Received, { kind: 'decision' }>): void {
    const { effects, specialists } = this.parts;
    const judged = passkeysIn(this.judge(entry.raw, entry.at), effects);
    if (judged.kind === 'refused') {
      this.parts.refuse({
        type: 'decision_refused',
        ...refusedFields(entry.raw),
        reason: judged.reason,
        via: entry.via,
        at: new Date(entry.at).toISOString(),
      });
      entry.answer?.({ refusal: judged.error });
      return;
    }
    if (judged.kind === 'forward') {
      const { decision, to } = judged;
      // One decision per approval goes to a specialist per drain; the others would only be refused there.
      if (this.parts.forwarded()?.has(decision.handoffId)) {
        const reason = `a decision on ${decision.handoffId} was sent on to ${to}, where it waits, in this same step; that one decides`;
        this.parts.refuse({
          type: 'decision_refused',
          ...refusedFields(entry.raw),
          reason: boundedReason(reason),
          via: entry.via,
          at: new Date(entry.at).toISOString(),
        });
        entry.answer?.({ refusal: new ApprovalRefusedError(decision.handoffId, reason) });
        return;
      }
      this.parts.forwarded()?.add(decision.handoffId);
      specialists.forward(decision, entry.via, to, entry.answer, (forwardId, reason) =>
        this.parts.queue({
          kind: 'forward_failed',
          ...(forwardId ? { forwardId } : {}),
          raw: decision,
          via: entry.via,
          reason,
          at: effects.now(),
        }),
      );
      return;
    }
    const record = judged.waiting.stages
      ? takeVote(judged, entry.at, entry.via, {
          apply: (e) => this.parts.apply(e),
          publish: (e) => this.parts.publish(e),
        })
      : recordOf(judged.decision, judged.waiting, entry.at, entry.via, judged.identity);
    if (record.outcome !== 'voted') this.parts.settle(judged.waiting, record);
    entry.answer?.({ record });
  }

  /** A forwarded decision: judged here like any, its outcome sent back when the chain that forwarded it waits for it. */
  decideForwarded(raw: unknown, at: number): void {
    const { decision, via, answer } = this.parts.specialists.received(raw);
    this.decide({ kind: 'decision', raw: decision, via, at, ...(answer ? { answer } : {}) });
  }

  /** A decision that could not be forwarded: on the record, and its caller told. */
  forwardFailed(entry: Extract<Received, { kind: 'forward_failed' }>): void {
    this.parts.refuse({
      type: 'decision_refused',
      ...refusedFields(entry.raw),
      reason: boundedReason(entry.reason),
      via: entry.via,
      at: new Date(entry.at).toISOString(),
    });
    if (entry.forwardId) this.parts.specialists.undeliverable(entry.forwardId, entry.reason);
  }
}
