import { z } from 'zod';
import { defineAgent, defineTool, scripted, Team } from '../src';
import type { ApprovalPolicy } from '../src/common/approvals';

/** Agents c0 … cN, each handing to the next; the last answers. Every model call takes `latencyMs`. */
export function chainTeam(handoffs: number, latencyMs: number): Team {
  return new Team(
    Array.from({ length: handoffs + 1 }, (_, i) =>
      defineAgent({
        id: `c${i}`,
        instructions: `Agent ${i} of the chain.`,
        model: scripted([
          i < handoffs
            ? { handoff: { to: `c${i + 1}`, message: `step ${i + 1}` }, delayMs: latencyMs }
            : { text: 'done', delayMs: latencyMs },
        ]),
        handoffs: i < handoffs ? [`c${i + 1}`] : [],
      }),
    ),
  );
}

/** a hands off to b, which needs approval (by `approval`'s rule: anyone, at once, by default). */
export function approvalTeam(approval: ApprovalPolicy = {}): Team {
  return new Team([
    defineAgent({
      id: 'a',
      instructions: 'A',
      model: scripted({ rules: [{ whenIncludes: '', reply: { handoff: { to: 'b', message: 'please' } } }] }),
    }),
    defineAgent({
      id: 'b',
      instructions: 'B',
      model: scripted({ rules: [{ whenIncludes: '', reply: { text: 'ok' } }] }),
      approval,
    }),
  ]);
}

/** About 200 tokens of text. */
export const NOTE =
  'The customer described the problem again in detail, with order numbers, dates and what support said before. '
    .repeat(7)
    .slice(0, 800);

/**
 * One agent that reads a note every turn (a conversation growing ~200 tokens a turn) until `maxTurns`
 * stops it. Its model is a one-rule script, so each model call carries a spec as small as a real model's.
 */
export function conversationTeam(): Team {
  const note = defineTool({
    name: 'note',
    description: 'Read the next note',
    parameters: z.object({}),
    execute: () => NOTE,
  });
  return new Team([
    defineAgent({
      id: 'talker',
      instructions: 'Read notes.',
      tools: [note],
      model: scripted({ rules: [{ whenIncludes: '', reply: { toolCalls: [{ name: 'note', arguments: {} }] } }] }),
    }),
  ]);
}
