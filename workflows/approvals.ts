/**
 * Human approval of handoffs: policy resolution, the waiting room, and the signal, update and query
 * handlers. Every change is published with `upsertMemo`, so each request, decision and refused
 * decision is an event in history (for the audit) and the waiting list is in visibility (for
 * `baton pending`).
 */
import { msToNumber } from '@temporalio/common/lib/time';
import { condition, setHandler, upsertMemo, uuid4 } from '@temporalio/workflow';
import { ApprovalRefusedError, toApplicationFailure } from '../src/common/errors';
import type { HandoffResult } from '../src/common/handoff';
import {
  APPROVAL_EVENT_MEMO,
  approveHandoffSignal,
  decideHandoffUpdate,
  PENDING_MEMO,
  pendingApprovalsQuery,
  rejectHandoffSignal,
} from '../src/common/messages';
import type {
  ApprovalPolicy,
  ApprovalRecord,
  ApprovalRule,
  HandoffDecision,
  PendingApproval,
  TeamSpec,
} from '../src/common/types';

/** The policy that applies to `from` → `to`: run rules, then team rules (edge before target), then the target's own. */
export function resolveApprovalPolicy(team: TeamSpec, runRules: ApprovalRule[], from: string, to: string): ApprovalPolicy | undefined {
  const match = (rules: ApprovalRule[]) =>
    rules.find((r) => r.to === to && r.from === from) ?? rules.find((r) => r.to === to && r.from === undefined);
  const policy = match(runRules) ?? match(team.approvals) ?? team.agents[to]?.approval;
  return policy && policy.required !== false ? policy : undefined;
}

/** The handoffs of a run that wait for people, and the decisions people send. */
export class ApprovalDesk {
  readonly pending = new Map<string, PendingApproval>();
  private readonly decided = new Map<string, ApprovalRecord>();

  constructor(private readonly onWaiting: (waiting: boolean) => void) {}

  /** Register the signal, update and query handlers. */
  install(): void {
    setHandler(approveHandoffSignal, (d) => this.receive({ ...d, decision: 'approve' }, 'signal'));
    setHandler(rejectHandoffSignal, (d) => this.receive({ ...d, decision: 'reject' }, 'signal'));
    setHandler(
      decideHandoffUpdate,
      (d) => {
        this.receive(d, 'update');
        return this.decided.get(d.handoffId)!;
      },
      {
        validator: (d) => {
          const problem = this.problem(d);
          if (problem) throw toApplicationFailure(new ApprovalRefusedError(String(d?.handoffId ?? ''), problem));
        },
      },
    );
    setHandler(pendingApprovalsQuery, () => [...this.pending.values()]);
  }

  /** Put `h` in front of people: record it as waiting and publish it. */
  open(h: HandoffResult, policy: ApprovalPolicy): PendingApproval {
    const now = Date.now();
    const waiting: PendingApproval = {
      handoffId: uuid4(),
      from: h.from,
      to: h.to,
      message: h.message,
      requestedAt: new Date(now).toISOString(),
      ...(policy.timeout !== undefined
        ? { expiresAt: new Date(now + msToNumber(policy.timeout as never)).toISOString(), timeout: policy.timeout }
        : {}),
      ...(policy.approvers ? { approvers: policy.approvers } : {}),
      onTimeout: policy.onTimeout ?? 'reject',
    };
    this.pending.set(waiting.handoffId, waiting);
    this.publish({ type: 'approval_requested', ...waiting });
    this.onWaiting(true);
    return waiting;
  }

  /**
   * Wait for a decision on a waiting handoff, or its timeout. Resolves `undefined`, leaving it
   * waiting, when `pause()` turns true first (the run is about to continue as new).
   */
  async wait(id: string, pause: () => boolean): Promise<ApprovalRecord | undefined> {
    const waiting = this.pending.get(id);
    if (!waiting) return this.decided.get(id);
    const ready = () => this.decided.has(id) || pause();
    const remaining = waiting.expiresAt !== undefined ? Math.max(1, Date.parse(waiting.expiresAt) - Date.now()) : undefined;
    const inTime = remaining !== undefined ? await condition(ready, remaining) : (await condition(ready), true);
    if (!inTime) this.settle(waiting, this.timedOut(waiting));
    return this.decided.get(id);
  }

  /** Close a waiting handoff with its outcome, and publish it. */
  private settle(waiting: PendingApproval, record: ApprovalRecord): void {
    this.pending.delete(waiting.handoffId);
    this.decided.set(waiting.handoffId, record);
    this.publish({ type: 'approval_decided', ...record });
    this.onWaiting(this.pending.size > 0);
  }

  /** What continue-as-new carries: the waiting handoffs and the decisions already made. */
  snapshot(): { pending: PendingApproval[]; decided: ApprovalRecord[] } {
    return { pending: [...this.pending.values()], decided: [...this.decided.values()] };
  }

  /** Take over the approvals of the previous run. */
  restore(state: { pending: PendingApproval[]; decided: ApprovalRecord[] }): void {
    for (const p of state.pending) this.pending.set(p.handoffId, p);
    for (const d of state.decided) this.decided.set(d.handoffId, d);
    if (this.pending.size > 0) {
      upsertMemo({ [PENDING_MEMO]: [...this.pending.values()] });
      this.onWaiting(true);
    }
  }

  /** Why a decision cannot apply, or `undefined` when it can. */
  problem(d: HandoffDecision | undefined): string | undefined {
    if (!d || typeof d.handoffId !== 'string' || typeof d.approver !== 'string' || d.approver === '') {
      return 'a decision needs {handoffId: string, approver: non-empty string}';
    }
    if (d.decision !== 'approve' && d.decision !== 'reject') return `decision must be "approve" or "reject", got ${JSON.stringify(d.decision)}`;
    const earlier = this.decided.get(d.handoffId);
    if (earlier) {
      return `handoff ${d.handoffId} was already decided (${earlier.outcome}${earlier.approver ? ` by ${earlier.approver}` : ''})`;
    }
    const waiting = this.pending.get(d.handoffId);
    if (!waiting) {
      const ids = [...this.pending.keys()];
      return `no handoff ${d.handoffId} is waiting for approval (waiting: ${ids.length > 0 ? ids.join(', ') : 'none'})`;
    }
    if (waiting.approvers && !waiting.approvers.includes(d.approver)) {
      return `${d.approver} may not decide this handoff (approvers: ${waiting.approvers.join(', ')})`;
    }
    return undefined;
  }

  private receive(d: HandoffDecision, via: 'signal' | 'update'): void {
    const problem = this.problem(d);
    if (problem) {
      // Only signals get here with a problem (the update's validator refuses first): ignore, but on the record.
      this.publish({ type: 'decision_refused', handoffId: d?.handoffId, approver: d?.approver, decision: d?.decision, reason: problem, via, at: new Date().toISOString() });
      return;
    }
    const waiting = this.pending.get(d.handoffId)!;
    this.settle(waiting, this.recordOf(waiting, d, via));
  }

  private recordOf(w: PendingApproval, d: HandoffDecision, via: 'signal' | 'update'): ApprovalRecord {
    return {
      handoffId: w.handoffId,
      outcome: d.decision === 'approve' ? 'approved' : 'rejected',
      approver: d.approver,
      ...(d.decision === 'approve' && d.comment !== undefined ? { comment: d.comment } : {}),
      ...(d.decision === 'reject' && d.reason !== undefined ? { reason: d.reason } : {}),
      requestedAt: w.requestedAt,
      decidedAt: new Date().toISOString(),
      via,
    };
  }

  private timedOut(w: PendingApproval): ApprovalRecord {
    return {
      handoffId: w.handoffId,
      outcome: 'timed_out',
      requestedAt: w.requestedAt,
      decidedAt: new Date().toISOString(),
      via: 'timeout',
      onTimeout: w.onTimeout,
      ...(w.timeout !== undefined ? { timeout: w.timeout } : {}),
    };
  }

  private publish(event: Record<string, unknown>): void {
    upsertMemo({ [PENDING_MEMO]: [...this.pending.values()], [APPROVAL_EVENT_MEMO]: event });
  }
}
