/**
 * What every channel says of an approval: a one-line summary, the card's address on the approvals
 * page, and the approval as the data of a CloudEvent.
 */
import type { NotifyInput } from '../../src/common/notifications';

/** One line naming what waits: a tool call with its arguments, or a handoff with its message. */
export function summaryOf(input: NotifyInput): string {
  const a = input.approval;
  const what = a.tool
    ? `${a.from} wants to call ${a.tool.name}(${a.tool.arguments})`
    : `${a.from} wants to hand off to ${a.to}: ${a.message}`;
  const lead =
    input.kind === 'approval.reminder'
      ? 'Reminder: still waiting'
      : input.kind === 'approval.escalated'
        ? 'Escalated'
        : 'Approval needed';
  return `${lead} — ${clip(what, 500)}`;
}

/** The approval's card on the page `baton serve` serves at `serviceUrl`. */
export function cardUrl(serviceUrl: string | undefined, input: NotifyInput): string | undefined {
  if (!serviceUrl) return undefined;
  return `${serviceUrl.replace(/\/+$/, '')}/runs/${encodeURIComponent(input.workflowId)}#approval-${encodeURIComponent(input.approval.handoffId)}`;
}

/** The event's data: what waits, where, and for whom. */
export function eventData(input: NotifyInput, card: string | undefined) {
  const a = input.approval;
  return {
    workflowId: input.workflowId,
    approvalId: a.handoffId,
    kind: a.tool ? 'tool_call' : 'handoff',
    from: a.from,
    to: a.to,
    message: a.message,
    requestedAt: a.requestedAt,
    ...(a.expiresAt ? { expiresAt: a.expiresAt } : {}),
    ...(a.approvers ? { approvers: a.approvers } : {}),
    ...(input.to ? { notified: input.to } : {}),
    ...(a.tool ? { tool: { name: a.tool.name, arguments: a.tool.arguments, callHash: a.tool.callHash } } : {}),
    ...(card ? { card } : {}),
  };
}

/** Who is asked: the event's own `to` (a reassignment), else the policy's approvers; `undefined` means anyone who may decide. */
export function approversOf(input: NotifyInput): string[] | undefined {
  return input.to ?? input.approval.approvers;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
