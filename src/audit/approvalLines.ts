/**
 * The timeline's lines of an approval's steps: asked for, decided (by whom, proven how), reminded
 * of, escalated, voted on in its stages, asked about and answered; the decisions, questions and
 * reports refused. A name a sender gave is quoted and marked claimed unless a signature proved it.
 */
import type { DecisionIdentity } from '../common/approvals';
import { quotedText } from '../common/display';
import type { ApprovalAuditEvent } from './approvalEvents';
import { clip, ERROR_WIDTH, quoted, time } from './timelineText';

/** The line of an approval step, as `[label, text]`. */
export function approvalLine(e: ApprovalAuditEvent): [string, string] {
  switch (e.kind) {
    case 'approval_requested': {
      const what = e.tool ? `${e.from} to call ${e.tool.name}(${clip(e.tool.arguments, 100)})` : `${e.from} → ${e.to}`;
      return [
        'approval',
        `asked for ${what} (${e.handoffId})${e.approvers ? `, approvers ${e.approvers.join(', ')}` : ''}${e.expiresAt ? `, expires ${time(e.expiresAt)}` : ''}`,
      ];
    }
    case 'approval_decided': {
      const edited = e.editedArguments ? ` with edited arguments ${clip(e.editedArguments, 100)}` : '';
      return [
        'approval',
        e.outcome === 'timed_out'
          ? `${e.escalationStep !== undefined ? `auto-decided by escalation step ${e.escalationStep + 1} after ${String(e.timeout)}` : 'nobody decided in time'} (${e.handoffId})${e.onTimeout ? ` → ${TIMEOUT_OUTCOME[e.onTimeout]}` : ''}`
          : `${e.outcome} by ${sender(e.approver, e.identity)}${edited} via ${e.via}${identityText(e.identity)}${e.comment ? `: ${quoted(e.comment, 100)}` : ''}${e.reason ? `: ${quoted(e.reason, 100)}` : ''}${e.reasonLabel ? ` (${e.reasonLabel})` : ''}`,
      ];
    }
    case 'approval_overdue':
      return ['approval', `overdue: ${e.handoffId} was due ${time(e.dueAt)}`];
    case 'approval_reminded':
      return [
        'approval',
        `reminded ${e.recipients.length > 0 ? e.recipients.join(', ') : 'anyone who may decide'} of ${e.handoffId} (reminder ${e.reminder})`,
      ];
    case 'approval_escalated':
      return [
        'approval',
        `escalated ${e.handoffId} (step ${e.step + 1}, after ${String(e.after)}): ${e.action === 'reassign' ? `reassigned from ${e.from?.join(', ') || 'anyone'} to ${e.to?.join(', ') ?? ''}` : `notified ${e.recipients?.join(', ') ?? ''}`}`,
      ];
    case 'approval_vote':
      return [
        'approval',
        `vote in stage ${e.stage + 1} on ${e.handoffId}: ${e.decision} by ${sender(e.approver, e.identity)}${e.onBehalfOf ? ` for ${e.onBehalfOf}` : ''} via ${e.via} (${e.approvals} of ${e.needed} approvals, ${e.rejections} rejected)`,
      ];
    case 'approval_stage':
      return [
        'approval',
        `stage ${e.stage + 1} of ${e.of} of ${e.handoffId} ${e.outcome}${e.next !== undefined ? `; stage ${e.next + 1} waits for ${e.approvers?.join(', ') ?? ''}` : ''}`,
      ];
    case 'delegated':
      return [
        'approval',
        `${e.delegate} decided for ${e.slot} on ${e.handoffId}, by a grant of ${e.authority === 'operator' ? `operator ${e.grantedBy}` : e.grantedBy} (key ${e.kid}) until ${time(e.until)}`,
      ];
    case 'decision_refused':
      return [
        'approval',
        `refused ${e.decision ?? 'decision'} from ${sender(e.approver)} (${e.via}): ${clip(e.reason, ERROR_WIDTH)}${e.count ? ` (and ${e.count - 1} more refused in the same step)` : ''}`,
      ];
    case 'approval_asked':
      return ['approval', `${sender(e.askedBy)} asked about ${e.handoffId}: ${quoted(e.question, 100)}`];
    case 'approval_answered':
      return ['approval', `${sender(e.answeredBy)} answered about ${e.handoffId}: ${quoted(e.answer, 100)}`];
    case 'question_refused':
      return [
        'approval',
        `refused ${e.action === 'ask' ? 'a question' : 'an answer'} from ${sender(e.by)}: ${clip(e.reason, ERROR_WIDTH)}${e.count ? ` (and ${e.count - 1} more refused in the same step)` : ''}`,
      ];
    case 'report_refused':
      return [
        'approval',
        `refused a report of waiting approvals${e.workflowId ? ` from ${e.workflowId}` : ''}, nothing changed: ${clip(e.reason, ERROR_WIDTH)}`,
      ];
  }
}

/** What the policy made of an approval nobody decided in time. */
const TIMEOUT_OUTCOME = { reject: 'rejected', approve: 'approved', fail: 'the run fails' } as const;

/**
 * A name a decision's sender gave, as a line shows it: quoted (so nothing in it passes for the
 * line's own words), and `(claimed)` unless a signature proved it (then {@link identityText} says how).
 */
export function sender(name: string | undefined, identity?: DecisionIdentity): string {
  if (name === undefined) return '?';
  return `${quotedText(name, 100)}${identity && identity.method !== 'claimed' ? '' : ' (claimed)'}`;
}

/**
 * How a decision's approver was proven, as a line shows it: `, signed (key alice-2026)` or
 * `, token checked by the service (issuer …, subject …; key …)`; nothing for a claimed name.
 */
export function identityText(identity: DecisionIdentity | undefined): string {
  if (!identity || identity.method === 'claimed') return '';
  if (identity.method === 'signed')
    return `, signed (key ${identity.kid}${identity.keySource === 'run' ? ", trusted by the run's options" : ''})`;
  return `, token checked by the service (issuer ${identity.issuer}, subject ${identity.subject}; key ${identity.kid})`;
}
