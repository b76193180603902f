/**
 * When an approval's policy acts: its SLA passing (`dueIn`), its reminders (`remindEvery`) and its
 * escalation steps (`after`), all measured from when the approval was asked for, so a run that
 * continues as new takes up the clock where the last one stopped.
 *
 * Pure: no Temporal API, no I/O.
 */
import type { PendingApproval } from '../../src/common/approvals';
import type { EscalationStep } from '../../src/common/approvalTiming';
import { durationMs } from '../../src/common/check';

/** A step a policy takes. */
export type PolicyAction =
  | { kind: 'overdue'; at: number }
  | { kind: 'step'; index: number; step: EscalationStep; at: number }
  | { kind: 'remind'; reminder: number; at: number };

/** The moments `w`'s policy acts from now on, in order; an overdue mark and escalation steps before reminders due at the same moment. */
function ahead(w: PendingApproval, horizon: number): PolicyAction[] {
  const { policy, progress } = w;
  if (!policy || !progress) return [];
  const asked = Date.parse(w.requestedAt);
  const actions: PolicyAction[] = [];
  if (w.dueAt !== undefined && !progress.overdue) actions.push({ kind: 'overdue', at: Date.parse(w.dueAt) });
  const steps = policy.escalation ?? [];
  for (let i = progress.steps; i < steps.length; i++)
    actions.push({ kind: 'step', index: i, step: steps[i]!, at: asked + durationMs(steps[i]!.after)! });
  const every = policy.remindEvery !== undefined ? durationMs(policy.remindEvery) : undefined;
  if (every !== undefined) {
    // Reminders missed while no worker ran are one reminder, the latest due: nobody needs five at once.
    const due = Math.max(progress.reminders + 1, Math.floor((horizon - asked) / every));
    actions.push({ kind: 'remind', reminder: due, at: asked + due * every });
  }
  const order = { overdue: 0, step: 1, remind: 2 };
  return actions.sort((a, b) => a.at - b.at || order[a.kind] - order[b.kind]);
}

/** When (ms) the policy of `w` acts next; `undefined` when it never does again. */
export function nextAt(w: PendingApproval): number | undefined {
  return ahead(w, 0)[0]?.at;
}

/** The steps of `w`'s policy due at `now`, in the order they are taken. */
export function dueAt(w: PendingApproval, now: number): PolicyAction[] {
  return ahead(w, now).filter((a) => a.at <= now);
}
