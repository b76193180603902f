/**
 * What an approval put in front of people looks like when it is asked for: its approvers, timeout,
 * signature rule and — in runs with the `baton-approval-policies` patch — the timing its policy runs
 * on (SLA, reminders, escalation), with the clock starting now.
 *
 * Pure: no Temporal API, no I/O.
 */
import type { ApprovalPolicy, PendingApproval } from '../../src/common/approvals';
import { argumentsOf, hasSlots, stagesFor } from '../../src/common/approvalQuorum';
import { effectiveTiming, type ApprovalTiming } from '../../src/common/approvalTiming';
import { durationMs } from '../../src/common/check';
import type { ToolCallUnderApproval } from '../../src/common/controls';
import type { HandoffResult } from '../../src/common/handoff';
import type { ChainState } from '../../src/common/state';

/** What an approval is asked about: a handoff, or a tool call (with `tool`). */
export type AskedAbout = Pick<HandoffResult, 'from' | 'to' | 'message'> & { tool?: ToolCallUnderApproval };

/** Where and when an approval is asked for. */
export interface Asking {
  id: string;
  now: number;
  state: ChainState;
  /** The run verifies signatures (the `baton-signatures` patch). */
  signatures: boolean;
  /** Whether the run runs approval policies' timing; asked only when the policy has some (the `baton-approval-policies` patch). */
  policies: () => boolean;
  /** Whether the run decides approvals by slots; asked only when the policy has `quorum` or `stages` (the `baton-approval-quorum` patch). @default never */
  slots?: () => boolean;
}

/** The approval asked for `h` (a handoff, or a tool call with `tool`) under `policy`. */
export function askedFor(h: AskedAbout, policy: ApprovalPolicy, at: Asking): PendingApproval {
  const { now, state } = at;
  const timeoutMs = policy.timeout !== undefined ? durationMs(policy.timeout) : undefined;
  const timing = effectiveTiming(policy, state.options.approvalPolicy, state.team.approvalPolicy);
  return {
    handoffId: at.id,
    from: h.from,
    to: h.to,
    message: h.message,
    requestedAt: new Date(now).toISOString(),
    ...(timeoutMs !== undefined ? { expiresAt: new Date(now + timeoutMs).toISOString(), timeout: policy.timeout } : {}),
    ...(policy.approvers ? { approvers: policy.approvers } : {}),
    onTimeout: policy.onTimeout ?? 'reject',
    ...(h.tool ? { tool: h.tool } : {}),
    ...(at.signatures && (policy.requireSignature || state.options.requireSignature) ? { requireSignature: true } : {}),
    ...(timing && at.policies() ? policyFields(timing, now) : {}),
    ...(hasSlots(policy) && at.slots?.() ? slotFields(policy, h) : {}),
    ...(state.team.rejectionReasons ? { rejectionReasons: state.team.rejectionReasons } : {}),
  };
}

/** The stages the approval waits on, chosen by the call's arguments (a handoff's: `{from, to, message}`); who may decide now. */
function slotFields(
  policy: ApprovalPolicy,
  h: AskedAbout,
): Pick<PendingApproval, 'stages' | 'stage' | 'votes' | 'approvers'> {
  const stages = stagesFor(
    policy,
    h.tool ? argumentsOf(h.tool.arguments) : { from: h.from, to: h.to, message: h.message },
  );
  return { stages, stage: 0, votes: [], approvers: [...stages[0]!.approvers] };
}

function policyFields(timing: ApprovalTiming, now: number): Pick<PendingApproval, 'dueAt' | 'policy' | 'progress'> {
  const dueMs = timing.dueIn !== undefined ? durationMs(timing.dueIn) : undefined;
  return {
    ...(dueMs !== undefined ? { dueAt: new Date(now + dueMs).toISOString() } : {}),
    policy: timing,
    progress: { reminders: 0, steps: 0, overdue: false },
  };
}
