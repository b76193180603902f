/**
 * What the context-transfer tests share: the `lookup` tool and the model steps that call it or hand
 * off, the teams that carry a conversation through each context mode, filter and template, and
 * the first model call an agent received.
 */
import { z } from 'zod';
import { defineAgent, defineTool, handoff, scripted, Team } from '../../src';
import type { CallModelInput, ScriptedStep } from '../../src/workflow';

/** A tool that looks up an order. */
export const lookup = defineTool({
  name: 'lookup',
  description: 'Look up an order',
  parameters: z.object({ orderId: z.string() }),
  execute: ({ orderId }) => `order ${orderId}: delivered`,
});
/** A model step that hands off to `to` with `message` (and any `extra` arguments of the handoff tool). */
export const hop = (to: string, message = `over to ${to}`, extra: Record<string, unknown> = {}): ScriptedStep => ({
  toolCalls: [{ name: 'handoff', arguments: { to, message, ...extra } }],
});
/** A model step that looks up order 42. */
export const looked: ScriptedStep = { toolCalls: [{ name: 'lookup', arguments: { orderId: '42' } }] };

/** The messages agent `id`'s first model call received. */
export const firstCallOf = (calls: CallModelInput[], id: string) => calls.find((c) => c.agentId === id)!;

/**
 * `triage` looks up the order and hands to `plain` (the message only), which hands on with the full
 * conversation and its instructions, then filtered, then the last user message.
 */
export function contextModesTeam(): Team {
  return new Team([
    defineAgent({
      id: 'triage',
      instructions: 'Route.',
      tools: [lookup],
      model: scripted([looked, hop('plain', 'just this')]),
      handoffs: ['plain'],
    }),
    defineAgent({
      id: 'plain',
      instructions: 'Plain.',
      model: scripted([hop('full', 'with everything')]),
      handoffs: [handoff('full', { context: 'full', transferSystemMessage: true })],
    }),
    defineAgent({
      id: 'full',
      instructions: 'Full.',
      model: scripted([hop('filtered', 'filtered')]),
      handoffs: [handoff('filtered', { context: 'full', filter: { dropToolCalls: true, lastMessages: 2 } })],
    }),
    defineAgent({
      id: 'filtered',
      instructions: 'Filtered.',
      model: scripted([hop('last', 'last user')]),
      handoffs: [handoff('last', { context: 'last_user_message' })],
    }),
    defineAgent({ id: 'last', instructions: 'Last.', model: scripted([{ text: 'done' }]) }),
  ]);
}

/**
 * `triage` hands to `refunds` with the rich input; `refunds` hands to `writer` with a summarized
 * conversation and a custom template.
 */
export function templatesTeam(): Team {
  return new Team([
    defineAgent({
      id: 'triage',
      instructions: 'Route.',
      tools: [lookup],
      model: scripted({
        steps: [looked, hop('refunds', 'refund order 42')],
        rules: [{ whenIncludes: 'Condense', reply: { text: 'Customer wants order 42 refunded; it was delivered.' } }],
      }),
      handoffs: [handoff('refunds', { input: 'rich', reason: 'money moves there' }), handoff('writer', {})],
    }),
    defineAgent({
      id: 'refunds',
      instructions: 'Refund.',
      model: scripted({
        steps: [hop('writer', 'tell them')],
        rules: [{ whenIncludes: '', reply: { text: 'summary of the refund talk' } }],
      }),
      handoffs: [
        handoff('writer', {
          context: 'full',
          filter: { summarize: true },
          input: 'From {{from}}: {{message}} (request: {{request}})',
        }),
      ],
    }),
    defineAgent({ id: 'writer', instructions: 'Write.', model: scripted([{ text: 'written' }]) }),
  ]);
}
