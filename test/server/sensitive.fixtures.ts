/**
 * What the sensitive values test (sensitive.test.ts) runs on: the secrets a payments team's tools
 * take and give, the team (whose tools record what they received), a check that text holds none of
 * the secrets, and the waiting approval as a caller reads it from the approvals list and stream.
 */
import { expect } from 'vitest';
import { z } from 'zod';
import { defineTool, Team } from '../../src';
import { scriptedAgent } from '../helpers/agents';
import { waitFor } from '../helpers/wait';
import type { Caller } from './service';
import { connectSse } from './sse';

/** The card the charge and the refund are asked for. */
export const CARD = '4111111111111111';
/** The card alice edits the refund to. */
export const EDITED_CARD = '5500005555555559';
/** The customer's email, a sensitive argument of the charge. */
export const EMAIL = 'ann.secret@example.com';
/** The token the charge returns, a sensitive result. */
const TOKEN = 'tok_live_8f3a9c';
const SECRETS = [CARD, EDITED_CARD, EMAIL, TOKEN];

/** What each tool's `execute` received. */
export const received: { tool: string; args: Record<string, unknown>; attempt: number }[] = [];

/** payments charges a card (sensitive arguments and token; the gateway times out once), then refunds to it, which alice approves. */
export function paymentsTeam(): Team {
  const chargeCard = defineTool({
    name: 'chargeCard',
    description: 'Charge a card',
    parameters: z.object({
      cardNumber: z.string(),
      amount: z.number(),
      customer: z.object({ email: z.string(), name: z.string() }),
    }),
    sensitive: { arguments: ['cardNumber', 'customer.email'], result: ['token'] },
    execute: (args, { attempt }) => {
      received.push({ tool: 'chargeCard', args, attempt });
      if (attempt === 1) throw new Error(`gateway timeout charging card ${args.cardNumber}`);
      return { token: TOKEN, last4: args.cardNumber.slice(-4), charged: args.amount };
    },
  });
  const refundCard = defineTool({
    name: 'refundCard',
    description: 'Refund to a card',
    parameters: z.object({ cardNumber: z.string(), amount: z.number() }),
    sensitive: { arguments: ['cardNumber'] },
    needsApproval: { approvers: ['alice'] },
    execute: (args, { attempt }) => {
      received.push({ tool: 'refundCard', args, attempt });
      return { refunded: args.amount };
    },
  });
  return new Team([
    scriptedAgent(
      'payments',
      [
        {
          toolCalls: [
            {
              name: 'chargeCard',
              arguments: { cardNumber: CARD, amount: 25, customer: { email: EMAIL, name: 'Ann' } },
            },
          ],
        },
        { toolCalls: [{ name: 'refundCard', arguments: { cardNumber: CARD, amount: 10 } }] },
        { text: 'Charged and refunded.' },
      ],
      { tools: [chargeCard, refundCard] },
    ),
  ]);
}

/** Fail if `text` holds any of the secrets. */
export function expectNoSecret(text: string): void {
  for (const secret of SECRETS) expect(text).not.toContain(secret);
}

export async function listedFor(call: Caller, token: string, workflowId: string) {
  const answer = await waitFor(
    () => call('GET', '/v1/approvals', { token }),
    (a) => a.status === 200 && a.body.approvals.some((p: { workflowId: string }) => p.workflowId === workflowId),
  );
  return answer.body.approvals.find((p: { workflowId: string }) => p.workflowId === workflowId);
}

export async function streamedFor(url: string, token: string, workflowId: string) {
  const sse = await connectSse(`${url}/v1/approvals/events`, { authorization: `Bearer ${token}` });
  try {
    for await (const e of sse.events) {
      const found = e.data.approvals.find((p: { workflowId: string }) => p.workflowId === workflowId);
      if (found) return found;
    }
  } finally {
    sse.close();
  }
  throw new Error('the stream ended first');
}
