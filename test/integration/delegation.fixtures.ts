/** The teams the delegation tests run, and the scripted steps that delegate in them. */
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { defineAgent, defineTool, delegate, scripted, Team } from '../../src';
import type { ScriptedStep } from '../../src/workflow';

/** A step that delegates `what` to `to`. */
const task = (to: string, what: string): ScriptedStep => ({
  toolCalls: [{ name: 'delegate', arguments: { to, task: what, reason: `${to} knows` } }],
});

/** A step that delegates each task of `list` to its specialist at once. */
const tasks = (...list: [string, string][]): ScriptedStep => ({
  toolCalls: list.map(([to, what]) => ({ name: 'delegate', arguments: { to, task: what, reason: 'parallel' } })),
});

/** A caller that delegates once, then answers with whatever its tools told it. */
const summarizer = { rules: [{ whenIncludes: '', reply: { text: 'summarized' } }] };

/** triage delegates looking up order 42 to orders (at most 3 turns), then answers with what it was told. */
export function specialistTeam(): Team {
  return new Team([
    defineAgent({
      id: 'triage',
      instructions: 'Generalist.',
      model: scripted([task('orders', 'look up order 42'), { text: 'Order 42 was delivered yesterday.' }]),
      handoffs: [delegate('orders', { maxTurns: 3 })],
    }),
    defineAgent({
      id: 'orders',
      instructions: 'Order specialist.',
      model: scripted([{ text: 'order 42: delivered yesterday' }]),
    }),
  ]);
}

/** lead fans out to broken (no answers) and slow (answers after 10 s, past its 2 s timeout), then summarizes. */
export function failingSpecialistsTeam(): Team {
  return new Team([
    defineAgent({
      id: 'lead',
      instructions: 'Lead.',
      model: scripted({ steps: [tasks(['broken', 'do it'], ['slow', 'do it slowly'])], ...summarizer }),
      handoffs: [delegate('broken'), delegate('slow', { timeout: '2 seconds' })],
    }),
    defineAgent({ id: 'broken', instructions: 'Broken.', model: scripted([]) }),
    defineAgent({ id: 'slow', instructions: 'Slow.', model: scripted([{ text: 'too late', delayMs: 10_000 }]) }),
  ]);
}

/** lead → mid → leaf, each delegating deeper (mid does the task itself when refused); boss delegates to broken with onFailure fail. */
export function deepTeam(): Team {
  return new Team([
    defineAgent({
      id: 'lead',
      instructions: 'Lead.',
      model: scripted({ steps: [task('mid', 'go deeper')], ...summarizer }),
      handoffs: [delegate('mid')],
    }),
    defineAgent({
      id: 'mid',
      instructions: 'Mid.',
      model: scripted({
        steps: [task('leaf', 'deeper still')],
        rules: [{ whenIncludes: '', reply: { text: 'did it myself' } }],
      }),
      handoffs: [delegate('leaf')],
    }),
    defineAgent({ id: 'leaf', instructions: 'Leaf.', model: scripted([{ text: 'leaf done' }]) }),
    defineAgent({
      id: 'boss',
      instructions: 'Boss.',
      model: scripted([task('broken', 'do it')]),
      handoffs: [delegate('broken', { onFailure: 'fail' })],
    }),
    defineAgent({ id: 'broken', instructions: 'Broken.', model: scripted([]) }),
  ]);
}

/** lead fans out to a (slow), b (no answers) and c, then summarizes. */
export function fanOutTeam(): Team {
  return new Team([
    defineAgent({
      id: 'lead',
      instructions: 'Lead.',
      model: scripted({ steps: [tasks(['a', 'part a'], ['b', 'part b'], ['c', 'part c'])], ...summarizer }),
      handoffs: [delegate('a'), delegate('b'), delegate('c')],
    }),
    defineAgent({ id: 'a', instructions: 'A', model: scripted([{ text: 'a done', delayMs: 300 }]) }),
    defineAgent({ id: 'b', instructions: 'B', model: scripted([]) }),
    defineAgent({ id: 'c', instructions: 'C', model: scripted([{ text: 'c done' }]) }),
  ]);
}

/** top delegates to middle, middle to leaf, and leaf hands off to vault, whose handoffs alice approves. */
export function nestedApprovalTeam(): Team {
  return new Team([
    defineAgent({
      id: 'top',
      instructions: 'Top.',
      model: scripted({ steps: [task('middle', 'organise it')], ...summarizer }),
      handoffs: [delegate('middle')],
    }),
    defineAgent({
      id: 'middle',
      instructions: 'Middle.',
      model: scripted({ steps: [task('leaf', 'do the risky part')], ...summarizer }),
      handoffs: [delegate('leaf')],
    }),
    defineAgent({
      id: 'leaf',
      instructions: 'Leaf.',
      model: scripted([{ handoff: { to: 'vault', message: 'open the vault' } }]),
      handoffs: ['vault'],
    }),
    defineAgent({
      id: 'vault',
      instructions: 'Vault.',
      model: scripted([{ text: 'vault opened' }]),
      approval: { approvers: ['alice'] },
    }),
  ]);
}

/** lead fans out to a and b, then files the report with a tool that fails while `archiveDown()` holds. */
export function filingTeam(archiveDown: () => boolean): Team {
  const file = defineTool({
    name: 'file',
    description: 'File the report',
    parameters: z.object({}),
    execute: () => {
      if (archiveDown()) throw ApplicationFailure.nonRetryable('the archive is down', 'ArchiveDown');
      return 'filed';
    },
  });
  return new Team([
    defineAgent({
      id: 'lead',
      instructions: 'Lead.',
      tools: [file],
      model: scripted([
        tasks(['a', 'part a'], ['b', 'part b']),
        { toolCalls: [{ name: 'file', arguments: {} }] },
        { text: 'report filed' },
      ]),
      handoffs: [delegate('a'), delegate('b')],
    }),
    defineAgent({ id: 'a', instructions: 'A', model: scripted([{ text: 'a done' }]) }),
    defineAgent({ id: 'b', instructions: 'B', model: scripted([{ text: 'b done' }]) }),
  ]);
}

/** lead delegates to slow, who answers only after a minute. */
export function slowSpecialistTeam(): Team {
  return new Team([
    defineAgent({
      id: 'lead',
      instructions: 'Lead.',
      model: scripted([task('slow', 'take your time')]),
      handoffs: [delegate('slow')],
    }),
    defineAgent({ id: 'slow', instructions: 'Slow.', model: scripted([{ text: 'never', delayMs: 60_000 }]) }),
  ]);
}

/** desk routes by profile (`routing`) to billing or shipping after its `lead` steps; `routerRules` answer the model as router. */
export const profiled = (
  routing: 'transfer' | 'delegate',
  lead: ScriptedStep[],
  routerRules: { whenIncludes: string; reply: ScriptedStep }[] = [],
) =>
  new Team([
    defineAgent({
      id: 'desk',
      instructions: 'Front desk.',
      routing,
      handoffs: [],
      model: scripted({
        steps: lead,
        rules: [...routerRules, { whenIncludes: '', reply: { text: 'desk answers' } }],
      }),
    }),
    defineAgent({
      id: 'billing',
      instructions: 'Billing.',
      profile: { specialization: 'billing', capabilities: ['refunds', 'invoices'] },
      model: scripted({ rules: [{ whenIncludes: '', reply: { text: 'billing done' } }] }),
    }),
    defineAgent({
      id: 'shipping',
      instructions: 'Shipping.',
      profile: { specialization: 'logistics', capabilities: ['tracking', 'returns'] },
      model: scripted({ rules: [{ whenIncludes: '', reply: { text: 'shipping done' } }] }),
    }),
  ]);

/** A step that asks the tool `name` for a specialist of `type` with the `required` capabilities. */
export const ask = (name: string, type: string, required: string[] = []): ScriptedStep => ({
  toolCalls: [
    {
      name,
      arguments: {
        specialist_type: type,
        task: 'help the customer',
        reason: 'not mine',
        required_capabilities: required,
      },
    },
  ],
});
