/**
 * The ports approval policies call out through. `notifyApprovers` tells people an approval still
 * waits (a reminder, an escalation's `notify` step); the default puts the notice on the record, so
 * every reminder is in the audit even where no channel is set up. A channel that replaces it keeps
 * the record (call {@link recordNotice} too) and must not block: a notification never holds a chain.
 *
 * Workflow code: deterministic, no I/O.
 */
import { APPROVAL_EVENT_MEMO } from '../../src/common/messages';
import type { ChainEffects } from '../chain/effects';

/** Something an approval's policy tells people. */
export interface ApprovalNotice {
  /** `approval_reminded` (a `remindEvery` reminder) or `approval_escalated` (an escalation's `notify` step). */
  type: 'approval_reminded' | 'approval_escalated';
  handoffId: string;
  /** Who is told: the approvers (empty: anyone may decide), or the step's `notify` list. */
  recipients: string[];
  /** What waits: `from` → `to` (`tool:<name>` for a tool call). */
  from: string;
  to: string;
  /** ISO 8601: when it is due, when its policy has an SLA. */
  dueAt?: string;
  /** Reminders: which one this is (1, 2, …). */
  reminder?: number;
  /** Escalation: the step's index, and its `after`. */
  step?: number;
  after?: string | number;
  /** Escalation `notify` steps: always `notify`. */
  action?: 'notify';
  /** ISO 8601, workflow time. */
  at: string;
}

/** Tell people about a waiting approval: must not block, must not throw. */
export type NotifyApprovers = (notice: ApprovalNotice) => void;

/** The ports of approval policies. */
export interface ApprovalPorts {
  notifyApprovers: NotifyApprovers;
}

/** The default `notifyApprovers`: the notice on the record (a memo upsert), where the audit shows it. */
export function recordNotice(effects: Pick<ChainEffects, 'publish'>): NotifyApprovers {
  return (notice) => effects.publish({ [APPROVAL_EVENT_MEMO]: notice });
}
