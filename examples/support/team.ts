/**
 * The support team: triage routes customers to refunds, sales or tech support.
 * Runs on the scripted model when OPENAI_API_KEY is unset, on `BATON_MODEL` (default gpt-4o-mini) when it is set.
 * Refunds looks orders up through the order system's MCP server (`../mcp/orders.ts`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { defineAgent, defineTool, openai, scripted, Team, ToolError } from 'baton-agents';
import { mcpServer } from 'baton-agents/mcp';
import type { ScriptedRule } from 'baton-agents/workflow';
import { RefundLedger } from './ledger';
import { currentOrder } from './orders';

const model = (rules: ScriptedRule[]) =>
  process.env.OPENAI_API_KEY
    ? openai(process.env.BATON_MODEL ?? 'gpt-4o-mini')
    : scripted({ model: 'scripted-support', rules });

/** The order server: compiled JavaScript in the package, TypeScript (through tsx) in baton's checkout. */
const ORDER_SERVER = [path.resolve(__dirname, '../mcp/orders.js'), path.resolve(__dirname, '../mcp/orders.ts')].find(
  (f) => fs.existsSync(f),
)!;

/** The order system, an MCP server the worker starts; its `lookupOrder` is `orders__lookupOrder`. */
export const ordersServer = mcpServer({
  name: 'orders',
  command: process.execPath,
  args: ORDER_SERVER.endsWith('.ts') ? ['--require', require.resolve('tsx/cjs'), ORDER_SERVER] : [ORDER_SERVER],
  // It reads the refund ledger, wherever this worker keeps it.
  inheritEnv: ['BATON_EXAMPLE_DATA', 'TMPDIR'],
});

/** Refunds above this many dollars need a person's approval of the `issueRefund` call itself. */
export const REFUND_APPROVAL_ABOVE = 100;

/**
 * Refunds a delivered order once per tool call: the refund ledger is keyed by the call's idempotency
 * key and kept on disk (`BATON_EXAMPLE_DATA`), so an attempt retried after a worker crash, on this
 * worker or another, returns the refund the first attempt issued instead of paying twice.
 */
export const issueRefund = defineTool({
  name: 'issueRefund',
  description: 'Refund a delivered order, in full or in part',
  parameters: z.object({ orderId: z.string(), amount: z.number().positive(), reason: z.string() }),
  // Refunds above $100 wait for a person, who may approve, reject, or approve a smaller amount.
  needsApproval: {
    when: { arg: 'amount', op: '>', value: REFUND_APPROVAL_ABOVE },
    timeout: '10 minutes',
    onTimeout: 'reject',
  },
  execute: ({ orderId, amount, reason }, { idempotencyKey }) => {
    const ledger = new RefundLedger();
    const earlier = ledger.get(idempotencyKey);
    if (earlier) return earlier;
    const order = currentOrder(orderId, ledger);
    if (!order) throw new ToolError(`no order ${orderId}`);
    if (order.status !== 'delivered')
      throw new ToolError(`order ${orderId} is ${order.status}; only delivered orders can be refunded`);
    if (amount > order.amount) throw new ToolError(`order ${orderId} was ${order.amount}; a refund cannot be more`);
    return ledger.issueOnce(idempotencyKey, { orderId, amount, reason }).refund;
  },
});

export const triage = defineAgent({
  id: 'triage',
  name: 'Triage',
  description: 'Greets customers and routes them to the right specialist',
  instructions:
    'You are the first contact of a shop. Work out what the customer needs and hand off to refunds, sales or tech. ' +
    'Put the order id and the problem in your handoff message.',
  // The first matching rule answers. A refused handoff comes back as a tool message that names
  // refunds, so those answers come before the rule that asks for a refund.
  model: model([
    {
      whenIncludes: 'The handoff to refunds was rejected',
      reply: {
        text: 'I am sorry: our refunds team declined this refund, so I cannot issue it. Reply here if you would like a person to look at it again.',
      },
    },
    {
      whenIncludes: 'The handoff to refunds was not approved in time',
      reply: {
        text: 'Our refunds team could not approve your refund in time. Your request is noted, and someone will get back to you within one business day.',
      },
    },
    {
      whenIncludes: 'order 1077',
      reply: {
        handoff: {
          to: 'refunds',
          message: 'Customer wants a refund for order 1077: the espresso machine stopped working.',
        },
      },
    },
    {
      whenIncludes: 'refund',
      reply: { handoff: { to: 'refunds', message: 'Customer wants a refund for order 1042: it arrived broken.' } },
    },
    { whenIncludes: 'buy', reply: { handoff: { to: 'sales', message: 'Customer wants to buy something.' } } },
    { whenIncludes: '', reply: { handoff: { to: 'tech', message: 'Customer has a technical question.' } } },
  ]),
  handoffs: ['refunds', 'sales', 'tech'],
});

export const refundsAgent = defineAgent({
  id: 'refunds',
  name: 'Refunds',
  description: 'Checks orders and issues refunds',
  instructions:
    'You handle refunds. Look the order up, refund it when it was delivered (the order amount, or less), and tell the customer what happened. ' +
    'Hand back to triage for anything that is not a refund.',
  model: model([
    {
      whenIncludes: 'Not run:',
      reply: {
        text: 'I could not issue your refund: refunds this large need a manager, who did not approve it. Someone will get back to you within one business day.',
      },
    },
    {
      whenIncludes: '"orderId":"1077","customer"',
      reply: {
        toolCalls: [{ name: 'issueRefund', arguments: { orderId: '1077', amount: 249, reason: 'stopped working' } }],
      },
    },
    {
      whenIncludes: '"status":"delivered"',
      reply: {
        toolCalls: [{ name: 'issueRefund', arguments: { orderId: '1042', amount: 59.9, reason: 'arrived broken' } }],
      },
    },
    {
      whenIncludes: '"status":"refunded"',
      reply: { text: 'Order 1042 has already been refunded: the money is on its way.' },
    },
    {
      whenIncludes: 'R-1077',
      reply: { text: 'Your refund for order 1077 is on its way: expect it within 3-5 business days.' },
    },
    {
      whenIncludes: 'refundId',
      reply: { text: 'Your refund of $59.90 for order 1042 is on its way: expect it within 3-5 business days.' },
    },
    {
      whenIncludes: 'order 1077',
      reply: { toolCalls: [{ name: 'orders__lookupOrder', arguments: { orderId: '1077' } }] },
    },
    {
      whenIncludes: 'only delivered orders can be refunded',
      reply: { text: 'Order 1042 cannot be refunded: only delivered orders can.' },
    },
    {
      whenIncludes: 'order 1042',
      reply: { toolCalls: [{ name: 'orders__lookupOrder', arguments: { orderId: '1042' } }] },
    },
    { whenIncludes: '', reply: { text: 'I could not find that order; could you send its number?' } },
  ]),
  tools: [issueRefund],
  mcpServers: [ordersServer],
  handoffs: ['triage'],
  // Money moves here: a person approves every handoff into refunds; nobody answering in 10 minutes means no.
  approval: { required: true, timeout: '10 minutes', onTimeout: 'reject' },
});

export const sales = defineAgent({
  id: 'sales',
  name: 'Sales',
  description: 'Answers questions about products, prices and stock',
  instructions: 'You help customers choose and buy products.',
  model: model([{ whenIncludes: '', reply: { text: 'Our ceramic teapot is $59.90 and in stock.' } }]),
  handoffs: ['triage'],
});

export const tech = defineAgent({
  id: 'tech',
  name: 'Tech support',
  description: 'Solves problems with the website, accounts and deliveries',
  instructions: 'You solve technical problems with the shop.',
  model: model([{ whenIncludes: '', reply: { text: 'Please clear your browser cache and sign in again.' } }]),
  handoffs: ['triage'],
});

export const team = new Team([triage, refundsAgent, sales, tech], { name: 'support' });
