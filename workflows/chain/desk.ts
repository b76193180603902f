/**
 * The approval desk: handoffs waiting for people, and the decisions and overrides people send.
 *
 * Signal and update handlers only queue what arrives (its {@link DeskMail}: `receive` and friends);
 * the loop applies the queue at fixed points ({@link ApprovalDesk.drain}: before each model turn,
 * while a handoff waits, before the run ends or continues as new). So the commands a run issues
 * never depend on the order in which a signal and an activity result arrive in one activation, nor
 * on whether they arrive in one activation or two.
 */
import type { ApprovalPolicy, ApprovalRecord, PendingApproval } from '../../src/common/approvals';
import { isRecord } from '../../src/common/check';
import { toApplicationFailure } from '../../src/common/errors';
import { boundedReason, clipText } from '../../src/common/limits';
import { APPROVAL_EVENT_MEMO, PENDING_MEMO } from '../../src/common/messages';
import { Patches } from '../../src/common/patches';
import { BatonStatus, type RunOverrides } from '../../src/common/run';
import type { ChainState } from '../../src/common/state';
import { type ApprovalClock, policyDesk } from './approvalClock';
import { type AskedAbout, askedFor } from './asked';
import { timedOut } from './decisions';
import { DeskDecisions } from './deskDecisions';
import { DeskMail } from './deskMail';
import type { DeskOptions } from './deskOptions';
import { applyQuestion, type QuestionDesk, questionDesk } from './deskQuestions';
import { overrideVerdict } from './overrideVerdict';
import { overridesRecord, type Refusal, RefusalTally } from './refusals';
import type { ChainEffects } from './effects';
import { Specialists } from './specialists';
import type { Chain } from './state';

/** The approval desk of one chain: applies its {@link DeskMail} and keeps its waiting approvals. */
export class ApprovalDesk extends DeskMail {
  /** This chain's specialists: what waits in them, decisions forwarded to them. */
  readonly specialists: Specialists;
  /** What was last reported to the parent chain, to report only changes. */
  private reported = '[]';
  private readonly bounded: boolean;
  private readonly signatures: boolean;
  /** The run has the `baton-inbox-bounds` patch (see {@link DeskOptions.inboxBounds}). */
  readonly inboxBounds: boolean;
  private readonly authority: boolean;
  private readonly carried: () => ChainState | undefined;
  private readonly clock: ApprovalClock | undefined;
  /** The refusals and applied overrides of the drain under way (runs with {@link DeskOptions.inboxBounds}). */
  private tally?: { refusals: RefusalTally; overrides: RunOverrides[]; forwarded: Set<string> };
  private chain?: Chain;
  /** Questions about waiting approvals and their answers (request-info). */
  readonly questions: QuestionDesk;
  /** Decisions on waiting approvals, judged and applied. */
  private readonly decisions: DeskDecisions;

  constructor(effects: ChainEffects, options: DeskOptions = {}) {
    super(effects);
    this.bounded = options.bounded ?? true;
    this.signatures = this.bounded && (options.signatures ?? false);
    this.inboxBounds = this.bounded && (options.inboxBounds ?? false);
    this.authority = this.bounded && (options.authority ?? false);
    this.carried = options.carried ?? (() => undefined);
    this.clock = options.clock;
    this.questions = questionDesk({
      rules: options.questions,
      effects,
      state: () => this.chain?.state ?? this.carried(),
      inSpecialist: (id) => this.specialists.find(id),
      apply: (e) => this.chain!.apply(e),
      publish: (e) => this.publish(e),
      refuse: (r) => this.refuse(r),
    });
    this.specialists = new Specialists(effects, this.bounded, this.inboxBounds, {
      changed: () => this.reportUp(),
      refused: (workflowId, reason) =>
        this.refuse({ type: 'report_refused', workflowId: clipText(workflowId, 200), reason: boundedReason(reason) }),
    });
    this.decisions = new DeskDecisions({
      effects,
      specialists: this.specialists,
      bounded: this.bounded,
      signatures: this.signatures,
      state: () => this.chain?.state ?? this.carried(),
      apply: (e) => this.chain!.apply(e),
      publish: (e) => this.publish(e),
      refuse: (r) => this.refuse(r),
      settle: (waiting, record) => this.settle(waiting, record),
      forwarded: () => this.tally?.forwarded,
      queue: (entry) => this.inbox.push(entry),
    });
  }

  /** The chain whose handoffs this desk handles; decisions queue until it exists. */
  attach(chain: Chain): void {
    this.chain = chain;
  }

  private get state(): ChainState {
    if (!this.chain) throw new Error('the approval desk has no chain yet');
    return this.chain.state;
  }

  /** Every approval waiting in this chain and its specialists; theirs name the chain they wait in. */
  pendingInTree(): PendingApproval[] {
    return [...(this.chain?.state.approvals.pending ?? []), ...this.specialists.pending()];
  }

  /** A specialist ended: nothing waits in it any more. */
  readonly childEnded = (workflowId: string): void => {
    if (this.specialists.endedChild(workflowId)) this.reportUp();
  };

  /** The update validator: refuse at once what cannot apply now, before anything is written. */
  validate(raw: unknown): void {
    const judged = this.decisions.judge(raw, this.effects.now());
    if (judged.kind === 'refused') throw toApplicationFailure(judged.error);
  }

  /** Nothing queued and no answered update still returning: {@link drain} would do nothing. */
  get idle(): boolean {
    return this.inbox.length === 0 && this.returning === 0;
  }

  /**
   * Apply everything queued, in arrival order; then wait until the handlers of answered updates
   * have returned, so their answers are on the record before the loop's next command.
   */
  async drain(): Promise<void> {
    const tally =
      this.inboxBounds && this.inbox.length > 0
        ? { refusals: new RefusalTally(), overrides: [], forwarded: new Set<string>() }
        : undefined;
    this.tally = tally;
    this.specialists.startDrain();
    // The queue is taken by index and emptied once: shifting an array of thousands is quadratic.
    for (let i = 0; i < this.inbox.length; i++) {
      const entry = this.inbox[i]!;
      if (entry.kind === 'overrides') this.applyOverrides(entry.raw, entry.at);
      else if (entry.kind === 'child_report') this.takeReport(entry.raw);
      else if (entry.kind === 'forwarded') this.decisions.decideForwarded(entry.raw, entry.at);
      else if (entry.kind === 'forward_outcome') this.specialists.settleForward(entry.raw);
      else if (entry.kind === 'forward_failed') this.decisions.forwardFailed(entry);
      else if (entry.kind === 'question') applyQuestion(entry, this.questions);
      else this.decisions.decide(entry);
    }
    this.inbox.length = 0;
    this.tally = undefined;
    // The drain's refusals and applied overrides on the record: one write per kind, whatever arrived.
    if (tally && tally.overrides.length > 0)
      this.effects.publish({ [APPROVAL_EVENT_MEMO]: overridesRecord(tally.overrides) });
    for (const refusal of tally?.refusals.records() ?? []) this.refuseNow(refusal);
    if (this.returning > 0) await this.effects.condition(() => this.returning === 0);
  }

  /** A refusal on the record: now, or with the drain's others when refusals are tallied. */
  private refuse(refusal: Refusal): void {
    return this.tally ? this.tally.refusals.add(refusal) : this.refuseNow(refusal);
  }

  private refuseNow(refusal: Refusal): void {
    if (refusal.type === 'decision_refused') this.publish(refusal);
    else this.effects.publish({ [APPROVAL_EVENT_MEMO]: refusal });
  }

  /** Put a handoff (or a tool call, with `tool`) in front of people: record it as waiting and publish it. */
  open(h: AskedAbout, policy: ApprovalPolicy): PendingApproval {
    const policies = () => this.clock !== undefined && this.effects.patched(Patches.APPROVAL_POLICIES);
    const waiting = askedFor(h, policy, {
      id: this.effects.newId(),
      now: this.effects.now(),
      state: this.state,
      signatures: this.signatures,
      policies,
      slots: () => this.effects.patched(Patches.APPROVAL_QUORUM),
    });
    this.chain!.apply({ type: 'approval_requested', pending: waiting });
    this.publish({ type: 'approval_requested', ...waiting });
    this.effects.setStatus(BatonStatus.AWAITING_APPROVAL);
    return waiting;
  }

  /**
   * Wait for the decision on a waiting handoff, its timeout or its policy's decision, on one durable
   * timer at a time (to the timeout, or the policy's next step when sooner: each step on the record).
   * Resolves `undefined`, leaving it waiting, when `pause()` turns true first (the run is about to
   * continue as new); the policy's clock runs from the request, so the next run goes on from there.
   */
  async wait(id: string, pause: () => boolean): Promise<ApprovalRecord | undefined> {
    await this.drain();
    for (let waiting = this.pending(id); waiting; waiting = this.pending(id)) {
      const expires = waiting.expiresAt !== undefined ? Date.parse(waiting.expiresAt) : undefined;
      const step = this.clock?.next(waiting);
      const wake = step !== undefined && (expires === undefined || step < expires) ? step : expires;
      const timer = wake !== undefined ? this.effects.timer(Math.max(1, wake - this.effects.now())) : undefined;
      for (;;) {
        await this.effects.condition(() => this.hasMail || pause() || timer?.fired === true);
        // A decision that arrived with the timer's firing wins over the timeout, whatever their order.
        await this.drain();
        const decided = this.decided(id);
        if (decided || pause()) {
          timer?.cancel();
          return decided;
        }
        if (timer?.fired) break;
      }
      // The timer fired, so its moment has come, whatever the clock of the task that brought it
      // reads (a task after a worker loss can still read the one before): what is due then is
      // taken now, live as in replay, and never put off behind a second timer.
      const now = Math.max(this.effects.now(), wake!);
      const record = wake === expires ? timedOut(waiting, now) : this.clock!.act(waiting, now, this.policyDesk);
      if (record) this.settle(waiting, record);
    }
    return this.decided(id);
  }

  /** What a policy's clock may do to an approval: move it on, and put steps on the record. */
  private readonly policyDesk = policyDesk(
    (e) => this.chain!.apply(e),
    (e) => this.publish(e),
  );

  /** Publish the waiting list again (a run that took over waiting handoffs). */
  republish(): void {
    if (this.state.approvals.pending.length === 0) return;
    this.effects.publish({ [PENDING_MEMO]: this.state.approvals.pending });
    this.effects.setStatus(BatonStatus.AWAITING_APPROVAL);
  }

  private applyOverrides(raw: unknown, at: number): void {
    const verdict = overrideVerdict(raw, this.state, {
      bounded: this.bounded,
      authority: this.authority,
      workflowId: this.effects.workflowId,
      at,
      patched: (id) => this.effects.patched(id),
    });
    if (verdict.kind === 'refused') return this.refuse(verdict.refusal);
    if (this.tally) this.tally.overrides.push(verdict.applied);
    else this.effects.publish({ [APPROVAL_EVENT_MEMO]: { type: 'overrides_applied', ...verdict.applied } });
    this.chain!.apply({ type: 'overridden', overrides: verdict.applied });
  }

  /**
   * Close a waiting handoff with its outcome, and publish it. A decision that is not a vote (a
   * timeout, a policy's step) keeps the votes cast before it, as the audit expects of every
   * decision after a vote; they are read from the approval as it stands now, not as it was when
   * the wait began.
   */
  private settle(waiting: PendingApproval, decided: ApprovalRecord): void {
    const votes = (this.pending(waiting.handoffId) ?? waiting).votes;
    const record = decided.votes === undefined && votes?.length ? { ...decided, votes } : decided;
    this.chain!.apply({ type: 'approval_decided', record });
    this.publish({ type: 'approval_decided', ...record });
    this.effects.setStatus(
      this.state.approvals.pending.length > 0 ? BatonStatus.AWAITING_APPROVAL : BatonStatus.RUNNING,
    );
  }

  private readonly pending = (id: string): PendingApproval | undefined =>
    this.state.approvals.pending.find((p) => p.handoffId === id);
  private readonly decided = (id: string): ApprovalRecord | undefined =>
    this.state.approvals.decided.find((d) => d.handoffId === id);

  private publish(event: Record<string, unknown>): void {
    this.effects.publish({ [PENDING_MEMO]: this.state.approvals.pending, [APPROVAL_EVENT_MEMO]: event });
    this.reportUp();
  }

  private takeReport(raw: unknown): void {
    const taken = this.specialists.take(raw);
    if (taken.kind === 'refused') {
      const from =
        isRecord(raw) && typeof raw.workflowId === 'string' ? { workflowId: clipText(raw.workflowId, 200) } : {};
      this.refuse({ type: 'report_refused', ...from, reason: boundedReason(taken.reason) });
      return;
    }
    if (taken.kind === 'taken') this.reportUp();
  }

  /** Tell the chain this one works for (if any) what waits in this part of the tree, when it changed. */
  private reportUp(): void {
    const parent = this.chain?.state.parent;
    if (!parent) return;
    const pending = this.pendingInTree().map((p) => ({ ...p, workflowId: p.workflowId ?? this.effects.workflowId }));
    const text = JSON.stringify(pending);
    if (text === this.reported) return;
    this.reported = text;
    this.effects.reportPending(parent.workflowId, {
      workflowId: this.effects.workflowId,
      ...(parent.token ? { token: parent.token } : {}),
      pending,
    });
  }
}
