/**
 * A chain's specialists as its approval desk sees them: the approvals waiting in them, and the
 * decisions forwarded to the specialist an approval waits in, with the callers waiting for their
 * outcome. A specialist's report is only a sign that what waits in it changed: the chain reads what
 * waits there from the specialist itself (`readSpecialistApprovals`, the `baton-report-pull` patch),
 * since anything a report carries — the token the specialist was started with included — is
 * readable from history by anyone who may signal the chain. Runs from before the patch take a
 * report that carries the specialist's token.
 */
import type { ApprovalRecord, HandoffDecision, PendingApproval } from '../../src/common/approvals';
import { isUnreadable } from '../../src/common/arrival';
import { isRecord } from '../../src/common/check';
import { ApprovalRefusedError, type BatonError, SignatureRefusedError } from '../../src/common/errors';
import { pendingApprovalCheck } from '../../src/common/approvalStateChecks';
import { boundedProblems, clipText, jsonOver, LIMITS, sizeMessage } from '../../src/common/limits';
import type { ChildApprovals, SpecialistApprovalsRead } from '../../src/common/messages';
import { Patches } from '../../src/common/patches';
import { reportSizes } from '../../src/common/sizes';
import type { ChainEffects } from './effects';

/** How a decision ended: its record, or the error that refused it. */
export type DecisionOutcome = { record: ApprovalRecord } | { refusal: BatonError };

/** Who waits for a decision's outcome (an update's caller, or the chain that forwarded it here). */
export type Answer = (outcome: DecisionOutcome) => void;

/**
 * What a report did: taken (what waits changed), ignored, refused with a reason for the record, or
 * a read of the specialist started (its outcome comes later, through the `changed` callback).
 */
export type ReportTaken =
  { kind: 'taken' } | { kind: 'ignored' } | { kind: 'refused'; reason: string } | { kind: 'reading' };

/** Answers to forwarded decisions a drain sends at most: a caller forwards one decision per approval per drain. */
const ANSWERS_PER_DRAIN = 20;

interface Forward {
  target: string;
  handoffId: string;
  answer: Answer;
}

export class Specialists {
  /** The specialists this chain started that have not ended, with their tokens (none in runs from before tokens). */
  private readonly running = new Map<string, string | undefined>();
  /** Specialists that ended: a late report of theirs is stale, not forged. */
  private readonly ended = new Set<string>();
  /** The approvals waiting in each specialist and its own specialists, by the reporting specialist. */
  private readonly waiting = new Map<string, PendingApproval[]>();
  /** Forwarded decisions whose callers wait for the outcome, by forward id. */
  private readonly forwards = new Map<string, Forward>();
  /** Answers to forwarded decisions this drain may still send (runs that tally what arrives). */
  private answersLeft = Number.POSITIVE_INFINITY;
  /** Whether this run reads what waits in its specialists (the `baton-report-pull` patch), decided at its first report. */
  private pulls?: boolean;
  /** Specialists being read, and those reported again meanwhile (read once more when the read ends). */
  private readonly reading = new Set<string>();
  private readonly readAgain = new Set<string>();

  constructor(
    private readonly effects: ChainEffects,
    /** The run holds what arrives to `LIMITS` and gives its specialists tokens (the `baton-bounds` patch). */
    private readonly bounded: boolean,
    /** The run sends at most {@link ANSWERS_PER_DRAIN} answers to forwarded decisions per drain (the `baton-inbox-bounds` patch). */
    private readonly tallied = false,
    /** Told when a read of a specialist changed what waits, and when what it answered was refused (for the record). */
    private readonly listener?: { changed: () => void; refused: (workflowId: string, reason: string) => void },
  ) {}

  /** A drain of the desk begins: answers to forwarded decisions are counted afresh. */
  startDrain(): void {
    if (this.tallied) this.answersLeft = ANSWERS_PER_DRAIN;
  }

  /** A specialist about to start: the token its reports are to carry (none in runs from before tokens). */
  enrol(workflowId: string): string | undefined {
    const token = this.bounded ? this.effects.newId() : undefined;
    this.running.set(workflowId, token);
    return token;
  }

  /** Every approval waiting in the specialists, each naming the chain it waits in. */
  pending(): PendingApproval[] {
    return [...this.waiting.values()].flat();
  }

  /** The approval `handoffId` when it waits in a specialist. */
  find(handoffId: string): PendingApproval | undefined {
    return this.pending().find((p) => p.handoffId === handoffId);
  }

  /**
   * A specialist ended: nothing waits in it any more, and callers of decisions forwarded into it
   * that got no outcome are told so. `true` when what waits changed.
   */
  endedChild(workflowId: string): boolean {
    this.running.delete(workflowId);
    this.ended.add(workflowId);
    for (const [id, f] of this.forwards) {
      if (f.target !== workflowId && !f.target.startsWith(`${workflowId}/`)) continue;
      this.forwards.delete(id);
      f.answer({
        refusal: new ApprovalRefusedError(
          f.handoffId,
          `the chain ${f.target} it waited in ended before answering the decision; its audit has the outcome`,
        ),
      });
    }
    return this.waiting.delete(workflowId);
  }

  /** A report of what waits in a specialist: taken only from a specialist this chain started, with its token. */
  take(raw: unknown): ReportTaken {
    if (isUnreadable(raw)) return { kind: 'refused', reason: raw.problem('the report') };
    if (!this.bounded) return this.takeUnchecked(raw);
    const sizes = reportSizes(raw);
    if (sizes.length > 0) return { kind: 'refused', reason: sizes.map(sizeMessage).join('; ') };
    const r = (isRecord(raw) ? raw : {}) as Partial<ChildApprovals>;
    if (typeof r.workflowId !== 'string' || !Array.isArray(r.pending))
      return { kind: 'refused', reason: 'a report must be {workflowId, token, pending: [...]}' };
    const from = r.workflowId;
    if (this.ended.has(from)) return { kind: 'ignored' };
    if (!this.running.has(from))
      return { kind: 'refused', reason: `${clipText(from, 200)} is not a specialist this chain started` };
    this.pulls ??= this.effects.patched(Patches.REPORT_PULL);
    if (this.pulls) {
      this.read(from);
      return { kind: 'reading' };
    }
    if (r.token !== this.running.get(from))
      return {
        kind: 'refused',
        reason: `the report of ${clipText(from, 200)} does not carry the token this chain gave it`,
      };
    return this.keepChecked(from, r.pending);
  }

  /** What waits in `from` as it reported it, or as a read of it answered: kept when every approval is well-formed and its own. */
  private keepChecked(from: string, raw: unknown[]): ReportTaken {
    const problems = raw.flatMap((p, i) => pendingApprovalCheck(p, `report.pending[${i}]`));
    if (problems.length > 0) return { kind: 'refused', reason: boundedProblems(problems).join('; ') };
    const pending = (raw as PendingApproval[]).map((p) => ({ ...p, workflowId: p.workflowId ?? from }));
    // A specialist speaks for itself and its own specialists, whose ids start with its own.
    const foreign = pending.find((p) => p.workflowId !== from && !p.workflowId.startsWith(`${from}/`));
    if (foreign)
      return {
        kind: 'refused',
        reason: `${clipText(from, 200)} reported an approval waiting in ${clipText(foreign.workflowId!, 200)}, which is not one of its specialists`,
      };
    this.keep(from, pending);
    return { kind: 'taken' };
  }

  /**
   * Read what waits in specialist `from`; one read at a time per specialist, and one more when it
   * was reported again meanwhile, so a flood of reports costs at most one read after the one under way.
   */
  private read(from: string): void {
    if (this.reading.has(from)) {
      this.readAgain.add(from);
      return;
    }
    this.reading.add(from);
    this.effects
      .readSpecialistApprovals(from)
      .then(
        (answer) => this.settleRead(from, answer),
        () => undefined,
      )
      .finally(() => {
        this.reading.delete(from);
        if (this.readAgain.delete(from) && this.running.has(from)) this.read(from);
      })
      .catch(() => undefined);
  }

  private settleRead(from: string, answer: SpecialistApprovalsRead): void {
    // A specialist that ended while it was read: nothing waits in it.
    if (!this.running.has(from)) return;
    if (answer.kind === 'ended') return;
    if (answer.kind === 'not_a_child') {
      this.listener?.refused(
        from,
        `Temporal does not record ${clipText(from, 200)} as a specialist of this chain${answer.parent ? ` (its parent is ${clipText(answer.parent, 200)})` : ''}`,
      );
      return;
    }
    const taken = this.keepChecked(from, Array.isArray(answer.pending) ? answer.pending : []);
    if (taken.kind === 'refused') this.listener?.refused(from, taken.reason);
    else this.listener?.changed();
  }

  /**
   * Send `decision` on to the chain `target` where its approval waits. `answer`, when given, gets
   * the outcome there; `failed` is told when the signal cannot be delivered.
   */
  forward(
    decision: HandoffDecision,
    via: 'signal' | 'update',
    target: string,
    answer: Answer | undefined,
    failed: (forwardId: string | undefined, reason: string) => void,
  ): void {
    const forwardId = answer ? this.effects.newId() : undefined;
    if (answer && forwardId) this.forwards.set(forwardId, { target, handoffId: decision.handoffId, answer });
    this.effects
      .forwardDecision(target, { decision, via, ...(forwardId ? { replyTo: this.effects.workflowId, forwardId } : {}) })
      .catch(() => failed(forwardId, `the chain ${target} it waits in can take no decisions (it has ended)`));
  }

  /** The outcome of a forwarded decision: its caller gets it. Outcomes nobody waits for are ignored. */
  settleForward(raw: unknown): void {
    if (
      !isRecord(raw) ||
      typeof raw.forwardId !== 'string' ||
      jsonOver('outcome', raw, LIMITS.decisionBytes * 2).length > 0
    )
      return;
    const f = this.forwards.get(raw.forwardId);
    if (!f) return;
    this.forwards.delete(raw.forwardId);
    if (isRecord(raw.record) && typeof raw.record.outcome === 'string') {
      f.answer({ record: raw.record as unknown as ApprovalRecord });
      return;
    }
    const reason = clipText(typeof raw.refused === 'string' ? raw.refused : 'refused', LIMITS.recordedReasonChars);
    // A signature the specialist refused comes back as the same typed refusal.
    const problem = typeof raw.problem === 'string' ? clipText(raw.problem, 32) : undefined;
    f.answer({
      refusal:
        problem !== undefined
          ? new SignatureRefusedError(f.handoffId, reason, problem)
          : new ApprovalRefusedError(f.handoffId, reason),
    });
  }

  /** The forward `forwardId` could not be delivered: its caller is told why. */
  undeliverable(forwardId: string, reason: string): void {
    const f = this.forwards.get(forwardId);
    if (!f) return;
    this.forwards.delete(forwardId);
    f.answer({ refusal: new ApprovalRefusedError(f.handoffId, reason) });
  }

  /**
   * A decision a calling chain forwarded here: the decision, how it first arrived, and who waits
   * for its outcome. Only a chain this one works for (whose id starts this one's) is answered.
   */
  received(raw: unknown): { decision: unknown; via: 'signal' | 'update'; answer?: Answer } {
    if (isUnreadable(raw)) return { decision: raw, via: 'signal' };
    const f = isRecord(raw) ? raw : {};
    const via = f.via === 'update' ? 'update' : 'signal';
    const replyTo =
      typeof f.replyTo === 'string' && this.effects.workflowId.startsWith(`${f.replyTo}/`) ? f.replyTo : undefined;
    const forwardId = typeof f.forwardId === 'string' && f.forwardId.length <= LIMITS.idChars ? f.forwardId : undefined;
    if (!replyTo || !forwardId) return { decision: f.decision, via };
    // The chain this one works for forwards one decision per approval per drain; more in one drain
    // come from elsewhere, and their answers (each a signal) are not sent.
    if (this.answersLeft <= 0) return { decision: f.decision, via };
    this.answersLeft--;
    const answer: Answer = (o) =>
      this.effects.answerForward(
        replyTo,
        'record' in o
          ? { forwardId, record: o.record }
          : {
              forwardId,
              refused: clipText(
                String((o.refusal as { reason?: unknown }).reason ?? o.refusal.message),
                LIMITS.recordedReasonChars,
              ),
              ...(o.refusal instanceof SignatureRefusedError ? { problem: o.refusal.problem } : {}),
            },
      );
    return { decision: f.decision, via, answer };
  }

  /** Runs from before tokens take reports as they came. */
  private takeUnchecked(raw: unknown): ReportTaken {
    const r = isRecord(raw) ? raw : {};
    if (typeof r.workflowId !== 'string' || !Array.isArray(r.pending)) return { kind: 'ignored' };
    const from = r.workflowId;
    this.keep(
      from,
      (r.pending as PendingApproval[]).map((p) => ({ ...p, workflowId: p.workflowId ?? from })),
    );
    return { kind: 'taken' };
  }

  private keep(from: string, pending: PendingApproval[]): void {
    if (pending.length > 0) this.waiting.set(from, pending);
    else this.waiting.delete(from);
  }
}
