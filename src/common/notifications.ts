/**
 * Notifications of approvals, as both sides see them: what a team's snapshot records of its
 * channels (their kinds, never their secrets), the kinds of event, and what the workflow hands the
 * `notifyApprovers` activity. Workflow-safe: no I/O.
 */
import type { PendingApproval } from './approvals';
import { arrayOf, boolean, type Check, oneOf, shapeOf } from './check';

/** What a notification tells: an approval opened, a reminder of one, or its escalation. */
export const NotifyKind = {
  OPENED: 'approval.opened',
  REMINDER: 'approval.reminder',
  ESCALATED: 'approval.escalated',
} as const;
export type NotifyKind = (typeof NotifyKind)[keyof typeof NotifyKind];

/** The kinds of channel a team may configure. */
export const ChannelKind = { WEBHOOK: 'webhook', EMAIL: 'email', SLACK: 'slack' } as const;
export type ChannelKind = (typeof ChannelKind)[keyof typeof ChannelKind];

/** What a team snapshot records of its notification channels: which kinds it has, and whether email carries decision links. */
export interface NotificationsSpec {
  channels: ChannelKind[];
  links?: boolean;
}

/** Problems with a snapshot's `notifications`. */
export const notificationsSpecCheck: Check<NotificationsSpec> = shapeOf<NotificationsSpec>()(
  { channels: arrayOf(oneOf(Object.values(ChannelKind)), 'channel kinds'), links: boolean },
  ['links'],
);

/** The input of the `notifyApprovers` activity. */
export interface NotifyInput {
  kind: NotifyKind;
  /** The idempotency key: the approval's id and the event's kind (and, for repeated events, their number). */
  key: string;
  /** The chain the approval waits in. */
  workflowId: string;
  approval: PendingApproval;
  /** For reminders and escalations: who it now goes to, when that changed. */
  to?: string[];
}

/** What the activity delivered, by target (`webhook:0`, `email:alice@example.com`, `slack`). */
export interface NotifyResult {
  delivered: string[];
}

/** The idempotency key of event `kind` for approval `approvalId` (`occurrence`: the n-th reminder, say). */
export function notifyKey(approvalId: string, kind: NotifyKind, occurrence?: number): string {
  return `${approvalId}:${kind}${occurrence !== undefined ? `:${occurrence}` : ''}`;
}
