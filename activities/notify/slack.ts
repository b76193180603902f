/**
 * Slack: a Block Kit message POSTed to an incoming webhook, with Approve and Reject buttons whose
 * clicks Slack sends to `baton serve` (`POST /v1/slack/interactions`), which verifies them and maps
 * the clicking user to an identity.
 */
import type { NotifyInput } from '../../src/common/notifications';
import { approversOf, cardUrl, summaryOf } from './message';

/** The `action_id`s of the buttons. */
export const SlackActions = { APPROVE: 'baton_approve', REJECT: 'baton_reject' } as const;

/** What a button's `value` carries: the decision, and exactly which call it is for. */
export interface SlackButtonValue {
  workflowId: string;
  approvalId: string;
  decision: 'approve' | 'reject';
  callHash?: string;
}

/** The Block Kit message for `input`. */
export function slackMessageOf(input: NotifyInput, serviceUrl: string | undefined) {
  const summary = summaryOf(input);
  const card = cardUrl(serviceUrl, input);
  const approvers = approversOf(input);
  const value = (decision: 'approve' | 'reject'): string => {
    const v: SlackButtonValue = {
      workflowId: input.workflowId,
      approvalId: input.approval.handoffId,
      decision,
      ...(input.approval.tool ? { callHash: input.approval.tool.callHash } : {}),
    };
    return JSON.stringify(v);
  };
  const context = [
    `Chain \`${input.workflowId}\``,
    ...(approvers ? [`approvers: ${approvers.join(', ')}`] : []),
    ...(input.approval.expiresAt ? [`decide by ${input.approval.expiresAt}`] : []),
    ...(card ? [`<${card}|open the card>`] : []),
  ];
  return {
    text: summary,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: slackEscape(summary).slice(0, 3000) } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: context.join(' · ').slice(0, 3000) }] },
      {
        type: 'actions',
        block_id: `baton:${input.approval.handoffId}`.slice(0, 255),
        elements: [
          {
            type: 'button',
            action_id: SlackActions.APPROVE,
            style: 'primary',
            text: { type: 'plain_text', text: 'Approve' },
            value: value('approve'),
          },
          {
            type: 'button',
            action_id: SlackActions.REJECT,
            style: 'danger',
            text: { type: 'plain_text', text: 'Reject' },
            value: value('reject'),
          },
        ],
      },
    ],
  };
}

/** POST `message` to the incoming webhook; throws unless Slack answers 2xx, so the activity retries. */
export async function sendSlack(webhookUrl: string, message: ReturnType<typeof slackMessageOf>): Promise<void> {
  const res = await fetch(webhookUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(message),
    signal: AbortSignal.timeout(10_000),
  });
  await res.body?.cancel();
  if (!res.ok) throw new Error(`the Slack webhook answered ${res.status}`);
}

function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
