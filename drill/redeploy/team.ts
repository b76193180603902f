/**
 * The redeploy drill's team in two versions. v1: triage hands refunds to refunds and quotes to
 * sales (both handoffs approved by a person), delegates invoices to billing and looks orders up;
 * refunds issues refunds (each call approved by a person); billing looks invoices up (approved).
 * v2 changes what a weekly release changes: triage's instructions, sales removed, `issueRefund`
 * renamed `refundOrder`, and `lookupOrder` wants a region. Models are scripted and answer by the
 * latest message, so every version of the team knows what to say.
 */
import { z } from 'zod';
import { defineAgent, defineTool, delegate, scripted, Team, type ToolContext } from '../../src';
import type { ScriptedRule } from '../../src/workflow';

/** The version a drill worker serves. */
export type TeamVersionName = 'v1' | 'v2';

/** Tool effects, applied once per idempotency key, by tool name: a migrated or retried call never applies twice. */
export const effects = new Map<string, { tool: string; worker: TeamVersionName; args: unknown }>();

const model = (rules: ScriptedRule[], delayMs: number) =>
  scripted({
    model: 'scripted-redeploy',
    rules: rules.map((r) => ({ ...r, reply: { ...r.reply, ...(delayMs > 0 ? { delayMs } : {}) } })),
  });

function tool<S extends z.ZodObject>(
  v: TeamVersionName,
  name: string,
  parameters: S,
  result: (args: z.output<S>) => unknown,
  needsApproval = false,
) {
  return defineTool({
    name,
    description: name,
    parameters,
    ...(needsApproval ? { needsApproval: true } : {}),
    execute: (args, ctx: ToolContext) => {
      if (!effects.has(ctx.idempotencyKey)) effects.set(ctx.idempotencyKey, { tool: name, worker: v, args });
      return result(args);
    },
  });
}

/**
 * Where the drill's chains start ({@link CHAIN_KINDS}): triage, and refunds, which is gated (a
 * handoff into it needs approval). The team names both as entries, as a team whose services start
 * refund chains directly does; any other start at a gated agent waits for its approval
 * (docs/authority.md).
 */
export const ENTRIES = ['triage', 'refunds'] as const;

/** The team a worker of version `v` serves; `delayMs` slows every model answer (the drill's model time). */
export function redeployTeam(v: TeamVersionName, delayMs = 0): Team {
  const refundParams = z.object({ orderId: z.string(), amount: z.number() });
  const refundTool = tool(
    v,
    v === 'v1' ? 'issueRefund' : 'refundOrder',
    refundParams,
    ({ orderId, amount }) => ({ refunded: true, orderId, amount }),
    true,
  );
  const lookupOrder =
    v === 'v1'
      ? tool(v, 'lookupOrder', z.object({ orderId: z.string() }), ({ orderId }) => ({ orderId, status: 'shipped' }))
      : tool(
          v,
          'lookupOrder',
          z.object({ orderId: z.string(), region: z.enum(['eu', 'us']) }),
          ({ orderId, region }) => ({ orderId, region, status: 'shipped' }),
        );
  const invoiceLookup = tool(
    v,
    'invoiceLookup',
    z.object({ orderId: z.string() }),
    ({ orderId }) => ({ invoice: `INV-${orderId}` }),
    true,
  );
  const lookupArgs = v === 'v1' ? { orderId: 'A1' } : { orderId: 'A1', region: 'eu' };

  const triage = defineAgent({
    id: 'triage',
    instructions:
      v === 'v1'
        ? 'Route refunds to refunds and quotes to sales; ask billing for invoices.'
        : 'Route refunds to refunds; answer quotes yourself; ask billing for invoices. Be brief.',
    model: model(
      [
        { whenIncludes: 'refund please', reply: { handoff: { to: 'refunds', message: 'Refund order A1 for 250' } } },
        {
          whenIncludes: 'quote please',
          reply:
            v === 'v1'
              ? { handoff: { to: 'sales', message: 'Quote for 3 seats' } }
              : { text: `Quote: 3 seats for 90 (triage ${v})` },
        },
        { whenIncludes: 'did not go on', reply: { text: `Quote: 3 seats for 90 (triage ${v}, sales is gone)` } },
        {
          whenIncludes: 'invoice please',
          reply: {
            toolCalls: [
              {
                name: 'delegate',
                arguments: { to: 'billing', task: 'Find the invoice of A1', reason: 'billing keeps invoices' },
              },
            ],
          },
        },
        { whenIncludes: 'Answer from billing', reply: { toolCalls: [{ name: 'lookupOrder', arguments: lookupArgs }] } },
        {
          whenIncludes: 'invalid arguments for lookupOrder',
          reply: { toolCalls: [{ name: 'lookupOrder', arguments: lookupArgs }] },
        },
        { whenIncludes: '"status":"shipped"', reply: { text: `Invoice INV-A1; order A1 shipped (triage ${v})` } },
        { whenIncludes: 'hello again', reply: { text: `Hello again (triage ${v})` } },
        { whenIncludes: 'hello', reply: { text: `Hello (triage ${v})` } },
      ],
      delayMs,
    ),
    tools: [lookupOrder],
    handoffs: [...(v === 'v1' ? ['sales'] : []), 'refunds', delegate('billing')],
  });
  const refunds = defineAgent({
    id: 'refunds',
    instructions: 'Refund the order the message names, then confirm.',
    model: model(
      [
        {
          whenIncludes: 'Refund order A1',
          reply: { toolCalls: [{ name: refundTool.name, arguments: { orderId: 'A1', amount: 250 } }] },
        },
        { whenIncludes: '"refunded":true', reply: { text: `Refunded 250 on A1 (refunds ${v})` } },
      ],
      delayMs,
    ),
    tools: [refundTool],
    handoffs: [],
    approval: { required: true },
  });
  const billing = defineAgent({
    id: 'billing',
    instructions: 'Find invoices.',
    model: model(
      [
        {
          whenIncludes: 'Find the invoice of A1',
          reply: { toolCalls: [{ name: 'invoiceLookup', arguments: { orderId: 'A1' } }] },
        },
        { whenIncludes: '"invoice"', reply: { text: 'INV-A1' } },
      ],
      delayMs,
    ),
    tools: [invoiceLookup],
    handoffs: [],
  });
  const sales = defineAgent({
    id: 'sales',
    instructions: 'Quote prices.',
    model: model(
      [{ whenIncludes: 'Quote for 3 seats', reply: { text: 'Quote: 3 seats for 100 (sales v1)' } }],
      delayMs,
    ),
    handoffs: [],
    approval: { required: true },
  });
  return new Team(v === 'v1' ? [triage, refunds, billing, sales] : [triage, refunds, billing], {
    name: 'support',
    version: v,
    entry: { agents: [...ENTRIES] },
  });
}

/** The kinds of work that wait for a person when the deploy comes, and what each starts with. */
export const CHAIN_KINDS = {
  /** triage → refunds waits for its handoff approval; refunds then calls `issueRefund`, which needs one too. */
  handoff: { agent: 'triage', input: 'refund please' },
  /** refunds' `issueRefund` call waits for approval. */
  tool: { agent: 'refunds', input: 'Refund order A1 for 250' },
  /** triage → sales waits for its handoff approval; v2 has no sales. */
  removed: { agent: 'triage', input: 'quote please' },
  /** triage waits for billing, whose `invoiceLookup` call waits for approval; triage then looks the order up. */
  delegation: { agent: 'triage', input: 'invoice please' },
} as const;
export type ChainKind = keyof typeof CHAIN_KINDS;
