/**
 * What the approval-questions tests share: the refunds team with its typed rejection reasons, and
 * the messages each model call of a chain received, read from its history across its runs.
 */
import type { Client } from '@temporalio/client';
import { z } from 'zod';
import { defineAgent, defineTool, scripted, Team, type BatonRun } from '../../src';
import type { ChatMessage } from '../../src/workflow';
import { withLocalActivities } from '../../src/audit/history';
import { ActivityType } from '../../src/common/messages';
import { fromPayloads } from '../../src/payloads/read';

/** The team's rejection reasons: a code and the label an approver sees. */
export const REASONS = [
  { code: 'over_limit', label: 'Over the refund limit' },
  { code: 'duplicate', label: 'Already refunded' },
];

const issueRefund = defineTool({
  name: 'issueRefund',
  description: 'Refund an order',
  parameters: z.object({ orderId: z.string(), amount: z.number() }),
  needsApproval: { approvers: ['alice'] },
  execute: ({ orderId, amount }) => ({ orderId, refunded: amount }),
});

/** refunds asks to refund 250 (alice approves); after a typed rejection it says what it got, and only then. */
export const team = () =>
  new Team(
    [
      defineAgent({
        id: 'refunds',
        instructions: 'You are refunds.',
        tools: [issueRefund],
        model: scripted({
          steps: [{ toolCalls: [{ name: 'issueRefund', arguments: { orderId: 'A1', amount: 250 } }] }],
          rules: [
            {
              whenIncludes: '"reason":{"code":"over_limit","label":"Over the refund limit"}',
              reply: { text: 'Told the customer: over the refund limit.' },
            },
            { whenIncludes: '"refunded":250', reply: { text: 'Refunded 250.' } },
          ],
        }),
      }),
    ],
    { rejectionReasons: REASONS },
  );

/** The messages of every model call of the chain, across its runs, in order. */
export async function modelInputs(client: Client, run: BatonRun): Promise<ChatMessage[][]> {
  const { workflowId } = run;
  const calls: ChatMessage[][] = [];
  let runId: string | undefined = (run.handle as { firstExecutionRunId?: string }).firstExecutionRunId;
  const seen = new Set<string>();
  while (runId && !seen.has(runId)) {
    seen.add(runId);
    const events = withLocalActivities(
      (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [],
    );
    for (const e of events) {
      const a = e.activityTaskScheduledEventAttributes;
      if (a?.activityType?.name === ActivityType.CALL_MODEL)
        calls.push(fromPayloads<{ messages: ChatMessage[] }>(a.input)?.messages ?? []);
    }
    runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return calls;
}

/** How many times `text` occurs in the messages' text. */
export const occurrences = (messages: ChatMessage[], text: string) =>
  messages.reduce((n, m) => n + (typeof m.content === 'string' ? m.content.split(text).length - 1 : 0), 0);
