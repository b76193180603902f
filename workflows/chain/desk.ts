/**
 * The approval desk: handoffs waiting for people, and the decisions and overrides people send.
 *
 * Signal and update handlers only queue what arrives ({@link ApprovalDesk.receive} and friends);
 * the loop applies the queue at fixed points ({@link ApprovalDesk.drain}: before each model turn,
 * while a handoff waits, before the run ends or continues as new). So the commands a run issues
 * never depend on the order in which a signal and an activity result arrive in one activation, nor
 * on whether they arrive in one activation or two.
 */
import type { ApprovalPolicy, ApprovalRecord, HandoffDecision, PendingApproval } from '../../src/common/approvals';
import { durationMs } from '../../src/common/check';
import type { ToolCallUnderApproval } from '../../src/common/controls';
import { ApprovalRefusedError, toApplicationFailure } from '../../src/common/errors';
import type { HandoffResult } from '../../src/common/handoff';
import { overrideProblems, readDecision } from '../../src/common/input';
import { schemaProblems } from '../../src/common/jsonSchema';
import { APPROVAL_EVENT_MEMO, PENDING_MEMO } from '../../src/common/messages';
import { BatonStatus } from '../../src/common/run';
import type { ChainEffects } from './effects';
import type { ChainState } from '../../src/common/state';
import type { Chain } from './state';

type Via = 'signal' | 'update';

type Received =
  | { kind: 'decision'; raw: unknown; via: Via; at: number; reply?: { resolve: (r: ApprovalRecord) => void; reject: (e: unknown) => void } }
  | { kind: 'overrides'; raw: unknown; at: number }
  | { kind: 'child_report'; raw: unknown };

export class ApprovalDesk {
  private readonly inbox: Received[] = [];
  /** Updates answered by the last drain whose handlers have not returned yet. */
  private returning = 0;
  /** The approvals waiting in this chain's specialists (and theirs), by specialist workflow id. */
  private readonly descendants = new Map<string, PendingApproval[]>();
  /** What was last reported to the parent chain, to report only changes. */
  private reported = '[]';

  private chain?: Chain;

  constructor(private readonly effects: ChainEffects) {}

  /** The chain whose handoffs this desk handles; decisions queue until it exists. */
  attach(chain: Chain): void {
    this.chain = chain;
  }

  private get state(): ChainState {
    if (!this.chain) throw new Error('the approval desk has no chain yet');
    return this.chain.state;
  }

  /** A decision sent by signal: queued for the loop. */
  receive(raw: unknown, decision: HandoffDecision['decision']): void {
    this.inbox.push({ kind: 'decision', raw: withDecision(raw, decision), via: 'signal', at: this.effects.now() });
  }

  /** A decision sent by update: queued; resolves with its record once the loop has applied it. */
  async receiveUpdate(raw: unknown): Promise<ApprovalRecord> {
    try {
      return await new Promise<ApprovalRecord>((resolve, reject) =>
        this.inbox.push({ kind: 'decision', raw, via: 'update', at: this.effects.now(), reply: { resolve, reject } }),
      );
    } finally {
      this.returning--;
    }
  }

  /** A specialist's report of the approvals waiting in it: queued for the loop. */
  receiveChildReport(raw: unknown): void {
    this.inbox.push({ kind: 'child_report', raw });
  }

  /** Every approval waiting in this chain and its specialists; theirs name the chain they wait in. */
  pendingInTree(): PendingApproval[] {
    return [...(this.chain?.state.approvals.pending ?? []), ...[...this.descendants.values()].flat()];
  }

  /** A specialist ended: nothing waits in it any more. */
  childEnded(workflowId: string): void {
    if (this.descendants.delete(workflowId)) this.reportUp();
  }

  /** Overrides sent by signal: queued for the loop. */
  receiveOverrides(raw: unknown): void {
    this.inbox.push({ kind: 'overrides', raw, at: this.effects.now() });
  }

  /** The update validator: refuse at once what cannot apply now. */
  validate(raw: unknown): void {
    const problem = this.problem(raw);
    if (problem) throw toApplicationFailure(new ApprovalRefusedError(handoffIdOf(raw), problem));
  }

  /** Whether anything waits in the queue. */
  get hasMail(): boolean {
    return this.inbox.length > 0;
  }

  /**
   * Apply everything queued, in arrival order; then wait until the handlers of answered updates
   * have returned, so their answers are on the record before the loop's next command.
   */
  async drain(): Promise<void> {
    for (let entry = this.inbox.shift(); entry; entry = this.inbox.shift()) {
      if (entry.kind === 'overrides') this.applyOverrides(entry.raw);
      else if (entry.kind === 'child_report') this.takeReport(entry.raw);
      else this.decide(entry);
    }
    if (this.returning > 0) await this.effects.condition(() => this.returning === 0);
  }

  /** Put a handoff (or a tool call, with `tool`) in front of people: record it as waiting and publish it. */
  open(h: Pick<HandoffResult, 'from' | 'to' | 'message'> & { tool?: ToolCallUnderApproval }, policy: ApprovalPolicy): PendingApproval {
    const now = this.effects.now();
    const timeoutMs = policy.timeout !== undefined ? durationMs(policy.timeout) : undefined;
    const waiting: PendingApproval = {
      handoffId: this.effects.newId(),
      from: h.from,
      to: h.to,
      message: h.message,
      requestedAt: new Date(now).toISOString(),
      ...(timeoutMs !== undefined ? { expiresAt: new Date(now + timeoutMs).toISOString(), timeout: policy.timeout } : {}),
      ...(policy.approvers ? { approvers: policy.approvers } : {}),
      onTimeout: policy.onTimeout ?? 'reject',
      ...(h.tool ? { tool: h.tool } : {}),
    };
    this.chain!.apply({ type: 'approval_requested', pending: waiting });
    this.publish({ type: 'approval_requested', ...waiting });
    this.effects.setStatus(BatonStatus.AWAITING_APPROVAL);
    return waiting;
  }

  /**
   * Wait for the decision on a waiting handoff, or its timeout (one durable timer for the whole
   * wait). Resolves `undefined`, leaving it waiting, when `pause()` turns true first (the run is
   * about to continue as new).
   */
  async wait(id: string, pause: () => boolean): Promise<ApprovalRecord | undefined> {
    await this.drain();
    const waiting = this.pending(id);
    if (!waiting) return this.decided(id);
    const timer = waiting.expiresAt !== undefined ? this.effects.timer(Math.max(1, Date.parse(waiting.expiresAt) - this.effects.now())) : undefined;
    for (;;) {
      await this.effects.condition(() => this.hasMail || pause() || timer?.fired === true);
      // A decision that arrived with the timer's firing wins over the timeout, whatever their order.
      await this.drain();
      const decided = this.decided(id);
      if (decided || pause()) {
        timer?.cancel();
        return decided;
      }
      if (timer?.fired) {
        this.settle(waiting, timedOut(waiting, this.effects.now()));
        return this.decided(id);
      }
    }
  }

  /** Publish the waiting list again (a run that took over waiting handoffs). */
  republish(): void {
    if (this.state.approvals.pending.length === 0) return;
    this.effects.publish({ [PENDING_MEMO]: this.state.approvals.pending });
    this.effects.setStatus(BatonStatus.AWAITING_APPROVAL);
  }

  private decide(entry: Extract<Received, { kind: 'decision' }>): void {
    const problem = this.problem(entry.raw);
    if (problem) {
      const d = (isObject(entry.raw) ? entry.raw : {}) as Partial<HandoffDecision>;
      this.publish({ type: 'decision_refused', handoffId: d.handoffId, approver: d.approver, decision: d.decision, reason: problem, via: entry.via, at: new Date(entry.at).toISOString() });
      this.answer(entry, undefined, new ApprovalRefusedError(handoffIdOf(entry.raw), problem));
      return;
    }
    const d = entry.raw as HandoffDecision;
    const waiting = this.pending(d.handoffId)!;
    const record: ApprovalRecord = {
      handoffId: waiting.handoffId,
      outcome: d.decision === 'approve' ? 'approved' : 'rejected',
      approver: d.approver,
      ...(d.decision === 'approve' && d.comment !== undefined ? { comment: d.comment } : {}),
      ...(d.decision === 'reject' && d.reason !== undefined ? { reason: d.reason } : {}),
      requestedAt: waiting.requestedAt,
      decidedAt: new Date(entry.at).toISOString(),
      via: entry.via,
      ...(waiting.tool ? { tool: waiting.tool.name } : {}),
      ...(waiting.tool && d.decision === 'approve' && d.arguments ? { editedArguments: JSON.stringify(d.arguments) } : {}),
    };
    this.settle(waiting, record);
    this.answer(entry, record);
  }

  private answer(entry: Extract<Received, { kind: 'decision' }>, record?: ApprovalRecord, refusal?: ApprovalRefusedError): void {
    if (!entry.reply) return;
    this.returning++;
    if (record) entry.reply.resolve(record);
    else entry.reply.reject(toApplicationFailure(refusal!));
  }

  private applyOverrides(raw: unknown): void {
    const problems = overrideProblems(raw, Object.keys(this.state.team.agents));
    if (problems.length > 0) {
      this.effects.publish({ [APPROVAL_EVENT_MEMO]: { type: 'overrides_refused', problems } });
      return;
    }
    this.effects.publish({ [APPROVAL_EVENT_MEMO]: { type: 'overrides_applied', ...(raw as object) } });
    this.chain!.apply({ type: 'overridden', overrides: raw as never });
  }

  /** Close a waiting handoff with its outcome, and publish it. */
  private settle(waiting: PendingApproval, record: ApprovalRecord): void {
    this.chain!.apply({ type: 'approval_decided', record });
    this.publish({ type: 'approval_decided', ...record });
    this.effects.setStatus(this.state.approvals.pending.length > 0 ? BatonStatus.AWAITING_APPROVAL : BatonStatus.RUNNING);
  }

  /** Why a decision cannot apply now, or `undefined` when it can. */
  private problem(raw: unknown): string | undefined {
    const read = readDecision(raw);
    if ('problems' in read) return read.problems.join('; ');
    const d = read.decision;
    if (!this.chain) return `no handoff ${d.handoffId} is waiting for approval (waiting: none)`;
    const earlier = this.decided(d.handoffId);
    if (earlier) return `handoff ${d.handoffId} was already decided (${earlier.outcome}${earlier.approver ? ` by ${earlier.approver}` : ''})`;
    const waiting = this.pending(d.handoffId);
    if (!waiting) {
      const ids = this.state.approvals.pending.map((p) => p.handoffId);
      return `no handoff ${d.handoffId} is waiting for approval (waiting: ${ids.length > 0 ? ids.join(', ') : 'none'})`;
    }
    if (waiting.approvers && !waiting.approvers.includes(d.approver)) {
      return `${d.approver} may not decide this ${waiting.tool ? 'tool call' : 'handoff'} (approvers: ${waiting.approvers.join(', ')})`;
    }
    return waiting.tool ? this.toolCallProblem(waiting, d) : d.arguments !== undefined || d.callHash !== undefined ? `handoff ${d.handoffId} is not a tool call: "arguments" and "callHash" apply to tool approvals only` : undefined;
  }

  /** Why a decision on a waiting tool call cannot apply: a stale call hash, or edited arguments its schema refuses. */
  private toolCallProblem(waiting: PendingApproval, d: HandoffDecision): string | undefined {
    const call = waiting.tool!;
    if (d.callHash !== undefined && d.callHash !== call.callHash) {
      return `stale decision: it is for call ${d.callHash}, but ${waiting.handoffId} waits for ${call.name}(${call.arguments}) (callHash ${call.callHash})`;
    }
    if (d.arguments === undefined) return undefined;
    if (d.decision !== 'approve') return '"arguments" go with approve only';
    const spec = this.state.team.agents[waiting.from]?.tools.find((t) => t.name === call.name);
    const problems = spec ? schemaProblems(spec.parameters, d.arguments) : [];
    return problems.length > 0 ? `the edited arguments do not match the parameters of ${call.name}: ${problems.join('; ')}` : undefined;
  }

  private pending(id: string): PendingApproval | undefined {
    return this.state.approvals.pending.find((p) => p.handoffId === id);
  }

  private decided(id: string): ApprovalRecord | undefined {
    return this.state.approvals.decided.find((d) => d.handoffId === id);
  }

  private publish(event: Record<string, unknown>): void {
    this.effects.publish({ [PENDING_MEMO]: this.state.approvals.pending, [APPROVAL_EVENT_MEMO]: event });
    this.reportUp();
  }

  private takeReport(raw: unknown): void {
    const r = isObject(raw) ? raw : {};
    if (typeof r.workflowId !== 'string' || !Array.isArray(r.pending)) return;
    const pending = (r.pending as PendingApproval[]).map((p) => ({ ...p, workflowId: p.workflowId ?? (r.workflowId as string) }));
    if (pending.length > 0) this.descendants.set(r.workflowId, pending);
    else this.descendants.delete(r.workflowId);
    this.reportUp();
  }

  /** Tell the chain this one works for (if any) what waits in this part of the tree, when it changed. */
  private reportUp(): void {
    const parent = this.chain?.state.parent;
    if (!parent) return;
    const pending = this.pendingInTree().map((p) => ({ ...p, workflowId: p.workflowId ?? this.effects.workflowId }));
    const text = JSON.stringify(pending);
    if (text === this.reported) return;
    this.reported = text;
    this.effects.reportPending(parent.workflowId, { workflowId: this.effects.workflowId, pending });
  }
}

function timedOut(w: PendingApproval, now: number): ApprovalRecord {
  return {
    handoffId: w.handoffId,
    outcome: 'timed_out',
    requestedAt: w.requestedAt,
    decidedAt: new Date(now).toISOString(),
    via: 'timeout',
    onTimeout: w.onTimeout,
    ...(w.timeout !== undefined ? { timeout: w.timeout } : {}),
    ...(w.tool ? { tool: w.tool.name } : {}),
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The signal's input with the decision its name stands for; other shapes pass on to be refused. */
function withDecision(raw: unknown, decision: HandoffDecision['decision']): unknown {
  return isObject(raw) ? { ...raw, decision } : raw;
}

function handoffIdOf(raw: unknown): string {
  return isObject(raw) && typeof raw.handoffId === 'string' ? raw.handoffId : '(none given)';
}
