/**
 * Approval policies run by durable timers: the {@link ApprovalClock} the approval desk waits on.
 * Each step is taken once and on the record — `approval_overdue` when the SLA passes,
 * `approval_reminded` for a reminder and `approval_escalated` for a `notify` step (through
 * `notifyApprovers`), `approval_escalated` with the new approvers for a `reassign` step — and a
 * `decide` step ends the wait with the policy's decision, recorded like a timeout that names its step.
 *
 * Workflow code: deterministic, no I/O.
 */
import type { ApprovalRecord, PendingApproval, PolicyProgress } from '../../src/common/approvals';
import type { ApprovalClock, PolicyDesk } from '../chain/approvalClock';
import { dueAt, nextAt, type PolicyAction } from './clock';
import type { ApprovalPorts } from './ports';

/** The clock of approval policies, telling people through `ports`. */
export function policyClock(ports: ApprovalPorts): ApprovalClock {
  return {
    next: nextAt,
    act(waiting, now, desk) {
      const taking = new Steps(waiting, now, desk, ports);
      for (const action of dueAt(waiting, now)) {
        const decided = taking.take(action);
        if (decided) return decided;
      }
      return undefined;
    },
  };
}

/** The steps of one approval's policy taken at one moment. */
class Steps {
  private progress: PolicyProgress;
  private approvers: string[] | undefined;
  private readonly at: string;

  constructor(
    private readonly w: PendingApproval,
    now: number,
    private readonly desk: PolicyDesk,
    private readonly ports: ApprovalPorts,
  ) {
    this.progress = { ...w.progress! };
    this.approvers = w.approvers;
    this.at = new Date(now).toISOString();
  }

  /** Take `action`: the policy's decision when it decides. */
  take(action: PolicyAction): ApprovalRecord | undefined {
    const { w, at } = this;
    const about = { handoffId: w.handoffId, from: w.from, to: w.to, ...(w.dueAt ? { dueAt: w.dueAt } : {}), at };
    if (action.kind === 'overdue') {
      this.moved({ overdue: true });
      this.desk.record({ type: 'approval_overdue', handoffId: w.handoffId, dueAt: w.dueAt, at });
      return undefined;
    }
    if (action.kind === 'remind') {
      this.moved({ reminders: action.reminder });
      this.ports.notifyApprovers({
        type: 'approval_reminded',
        ...about,
        recipients: this.approvers ?? [],
        reminder: action.reminder,
      });
      return undefined;
    }
    const { index, step } = action;
    if (step.decide !== undefined) {
      this.moved({ steps: index + 1 });
      return {
        handoffId: w.handoffId,
        outcome: 'timed_out',
        requestedAt: w.requestedAt,
        decidedAt: at,
        via: 'timeout',
        onTimeout: step.decide,
        timeout: step.after,
        ...(w.tool ? { tool: w.tool.name } : {}),
        escalationStep: index,
      };
    }
    if (step.reassign) {
      const before = this.approvers ?? [];
      this.approvers = [...step.reassign];
      this.moved({ steps: index + 1 });
      this.desk.record({
        type: 'approval_escalated',
        handoffId: w.handoffId,
        step: index,
        after: step.after,
        action: 'reassign',
        to: this.approvers,
        from: before,
        at,
      });
      return undefined;
    }
    this.moved({ steps: index + 1 });
    this.ports.notifyApprovers({
      type: 'approval_escalated',
      ...about,
      action: 'notify',
      recipients: [...(step.notify ?? [])],
      step: index,
      after: step.after,
    });
    return undefined;
  }

  /** The policy got further: in the chain's state (carried across continue-as-new) before anything is said of it. */
  private moved(change: Partial<PolicyProgress>): void {
    this.progress = { ...this.progress, ...change };
    this.desk.progress(this.w.handoffId, this.progress, this.approvers);
  }
}
