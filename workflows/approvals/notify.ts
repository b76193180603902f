/**
 * The workflow's side of notifications: when an approval opens (or a policy reminds or escalates),
 * schedule the `notifyApprovers` activity and do not wait for it. Its retries run with backoff on
 * Temporal's side; whether it succeeds, keeps failing or is still retrying when the chain moves on,
 * ends or continues as new, the chain never waits for it; its attempts and outcome are in history.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { BatonActivities } from '../../activities';
import type { PendingApproval } from '../../src/common/approvals';
import { APPROVAL_EVENT_MEMO } from '../../src/common/messages';
import { NotifyKind, notifyKey } from '../../src/common/notifications';
import { Patches } from '../../src/common/patches';
import { redactPendingApproval } from '../../src/common/sensitive';
import type { ChainState } from '../../src/common/state';
import type { ChainEffects } from '../chain/effects';
import { type ApprovalPorts, recordNotice } from './ports';

/** What a notification is about. */
export interface NotifyRequest {
  effects: Pick<ChainEffects, 'patched' | 'workflowId'>;
  state: ChainState;
  waiting: PendingApproval;
  /** The n-th event of its kind for this approval (reminders), part of its idempotency key. */
  occurrence?: number;
  /** Who it goes to now, when a policy reassigned the approval. */
  to?: string[];
}

/** How the activity is retried: soon at first, then less often, for up to a day. */
const NOTIFY_OPTIONS = {
  startToCloseTimeout: '1 minute',
  scheduleToCloseTimeout: '1 day',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 minutes' },
} as const;

/**
 * Tell the approvers of `waiting` about event `kind` on every channel the team configured, at least
 * once, under the idempotency key `<approval id>:<kind>[:<occurrence>]`. Returns at once; issues no
 * command unless the team has channels.
 * @example notifyApprovers(NotifyKind.REMINDER, { effects, state, waiting, occurrence: 2 })
 */
export function notifyApprovers(kind: NotifyKind, request: NotifyRequest): void {
  const { effects, state, waiting } = request;
  // Only snapshots with channels ask, and only runs that took the patch: older histories replay as recorded.
  if (!state.team.notifications?.channels.length || !effects.patched(Patches.APPROVAL_NOTIFICATIONS)) return;
  // What goes to people outside the chain never carries a tool's sensitive arguments.
  const spec = waiting.tool ? state.team.agents[waiting.from]?.toolSensitivity?.[waiting.tool.name] : undefined;
  const approval = redactPendingApproval(waiting, spec);
  const key = notifyKey(waiting.handoffId, kind, request.occurrence);
  const { notifyApprovers: notify } = proxyActivities<BatonActivities>({
    ...NOTIFY_OPTIONS,
    summary: `notify ${kind} ${waiting.handoffId}`,
  });
  notify({ kind, key, workflowId: effects.workflowId, approval, ...(request.to ? { to: request.to } : {}) }).catch(
    () => {
      // Given up after its retries: the failure is in history, and the chain does not depend on it.
    },
  );
}

/**
 * `effects` that also notify the approvers of each approval the desk opens: when the desk publishes
 * an `approval_requested` event, the approval it names is notified against the chain's state.
 */
export function notifyingEffects(effects: ChainEffects, state: () => ChainState | undefined): ChainEffects {
  return Object.assign(Object.create(effects) as ChainEffects, {
    publish: (memo: Record<string, unknown>) => {
      effects.publish(memo);
      const event = memo[APPROVAL_EVENT_MEMO] as { type?: unknown; handoffId?: unknown } | undefined;
      const s = state();
      if (event?.type !== 'approval_requested' || !s) return;
      const waiting = s.approvals.pending.find((p) => p.handoffId === event.handoffId);
      if (waiting) notifyApprovers(NotifyKind.OPENED, { effects, state: s, waiting });
    },
  } satisfies Partial<ChainEffects>);
}

/**
 * The ports approval policies tell people through: each reminder and escalation `notify` step goes
 * on the record (as {@link recordNotice} does) and to the team's channels, keyed by its number so a
 * retried reminder is sent once and the next one is sent again.
 */
export function notifyingPorts(effects: ChainEffects, state: () => ChainState | undefined): ApprovalPorts {
  const record = recordNotice(effects);
  return {
    notifyApprovers: (notice) => {
      record(notice);
      const s = state();
      const waiting = s?.approvals.pending.find((p) => p.handoffId === notice.handoffId);
      if (!s || !waiting) return;
      const kind = notice.type === 'approval_reminded' ? NotifyKind.REMINDER : NotifyKind.ESCALATED;
      notifyApprovers(kind, {
        effects,
        state: s,
        waiting,
        occurrence: notice.reminder ?? notice.step,
        to: notice.recipients,
      });
    },
  };
}
