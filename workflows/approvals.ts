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

interface Received {
  decision: HandoffDecision;
  via: 'signal' | 'update';
  at: string;
}

/** The handoffs of a run that wait for people, and the decisions people send. */
export class ApprovalDesk {
  readonly pending = new Map<string, PendingApproval>();
  private readonly received = new Map<string, Received>();
  private readonly decided = new Map<string, ApprovalRecord>();

  constructor(private readonly onWaiting: (waiting: boolean) => void) {}

  /** Register the signal, update and query handlers. */
  install(): void {
    setHandler(approveHandoffSignal, (d) => this.receive({ ...d, decision: 'approve' }, 'signal'));
    setHandler(rejectHandoffSignal, (d) => this.receive({ ...d, decision: 'reject' }, 'signal'));
    setHandler(
      decideHandoffUpdate,
      async (d) => {
        this.receive(d, 'update');
        await condition(() => this.decided.has(d.handoffId));
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

  /** Ask for a decision on `h` and wait for it (or for the policy's timeout). */
  async request(h: HandoffResult, policy: ApprovalPolicy): Promise<ApprovalRecord> {
    const now = Date.now();
    const timeoutMs = policy.timeout !== undefined ? msToNumber(policy.timeout as never) : undefined;
    const waiting: PendingApproval = {
      handoffId: uuid4(),
      from: h.from,
      to: h.to,
      message: h.message,
      requestedAt: new Date(now).toISOString(),
      ...(timeoutMs !== undefined ? { expiresAt: new Date(now + timeoutMs).toISOString() } : {}),
      ...(policy.approvers ? { approvers: policy.approvers } : {}),
      onTimeout: policy.onTimeout ?? 'reject',
    };
    const id = waiting.handoffId;
    this.pending.set(id, waiting);
    this.publish({ type: 'approval_requested', ...waiting });
    this.onWaiting(true);
    const arrived = () => this.received.has(id);
    const decidedInTime = timeoutMs !== undefined ? await condition(arrived, timeoutMs) : (await condition(arrived), true);
    this.pending.delete(id);
    const record = decidedInTime ? this.recordOf(waiting, this.received.get(id)!) : this.timedOut(waiting);
    this.decided.set(id, record);
    this.publish({ type: 'approval_decided', ...record });
    this.onWaiting(this.pending.size > 0);
    return record;
  }

  /** Why a decision cannot apply, or `undefined` when it can. */
  problem(d: HandoffDecision | undefined): string | undefined {
    if (!d || typeof d.handoffId !== 'string' || typeof d.approver !== 'string' || d.approver === '') {
      return 'a decision needs {handoffId: string, approver: non-empty string}';
    }
    if (d.decision !== 'approve' && d.decision !== 'reject') return `decision must be "approve" or "reject", got ${JSON.stringify(d.decision)}`;
    const earlier = this.decided.get(d.handoffId) ?? this.received.get(d.handoffId)?.decision;
    if (earlier) {
      const what = 'outcome' in earlier ? earlier.outcome : earlier.decision === 'approve' ? 'approved' : 'rejected';
      return `handoff ${d.handoffId} was already decided (${what}${earlier.approver ? ` by ${earlier.approver}` : ''})`;
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
    this.received.set(d.handoffId, { decision: d, via, at: new Date().toISOString() });
  }

  private recordOf(w: PendingApproval, r: Received): ApprovalRecord {
    const d = r.decision;
    return {
      handoffId: w.handoffId,
      outcome: d.decision === 'approve' ? 'approved' : 'rejected',
      approver: d.approver,
      ...(d.decision === 'approve' && d.comment !== undefined ? { comment: d.comment } : {}),
      ...(d.decision === 'reject' && d.reason !== undefined ? { reason: d.reason } : {}),
      requestedAt: w.requestedAt,
      decidedAt: r.at,
      via: r.via,
    };
  }

  private timedOut(w: PendingApproval): ApprovalRecord {
    return { handoffId: w.handoffId, outcome: 'timed_out', requestedAt: w.requestedAt, decidedAt: new Date().toISOString(), via: 'timeout' };
  }

  private publish(event: Record<string, unknown>): void {
    upsertMemo({ [PENDING_MEMO]: [...this.pending.values()], [APPROVAL_EVENT_MEMO]: event });
  }
}
