/** The teams the controls tests run on a real server, the steps they script, and the control events they read back. */
import { z } from 'zod';
import {
  type Baton,
  type BatonRun,
  defineAgent,
  defineTool,
  delegate,
  guardrails,
  scripted,
  Team,
  ToolError,
} from '../../src';
import type { ScriptedStep } from '../../src/workflow';
import { scriptedAgent as agent } from '../helpers/agents';

/** The tokens each scripted call of the budget teams uses. */
const usage = { inputTokens: 100, outputTokens: 50 };

/** A step that hands off to `to` with `message`. */
export const hop = (to: string, message: string): ScriptedStep => ({ handoff: { to, message } });
/** A step that calls the tool `name` with `args`. */
export const tool = (name: string, args: Record<string, unknown> = {}): ScriptedStep => ({
  toolCalls: [{ name, arguments: args }],
});
/** A control event of a chain's audit. */
export type Control = { kind: string; control: string } & Record<string, unknown>;
/** The control events of the run's audit, in order. */
export const controlsOf = async (baton: Baton, run: BatonRun) =>
  (await baton.audit(run.workflowId)).events.filter(
    (e) => (e as { kind: string }).kind === 'control',
  ) as unknown as Control[];

/** triage hands refunds three refunds (the third after 2.5 s); refunds' ledger tool fails while `ledgerUp()` does not hold. */
export function breakerTeam(ledgerUp: () => boolean): Team {
  const ledger = defineTool({
    name: 'ledger',
    description: 'Write to the ledger',
    parameters: z.object({}),
    execute: () => {
      if (!ledgerUp()) throw new ToolError('ledger unavailable');
      return 'written';
    },
  });
  return new Team([
    agent('triage', [
      hop('refunds', 'refund 1'),
      hop('refunds', 'refund 2'),
      { delayMs: 2500, ...hop('refunds', 'refund 3') },
    ]),
    agent(
      'refunds',
      [tool('ledger'), tool('ledger'), tool('ledger'), hop('triage', 'the ledger is down'), { text: 'refunded' }],
      { tools: [ledger] },
    ),
  ]);
}

/** a spends tokens on two lookups, b hands off to c, slow looks up for 1.5 s, hopper hands off to c; each call uses 150 tokens. */
export function budgetsTeam(): Team {
  const lookup = defineTool({
    name: 'lookup',
    description: 'Look up',
    parameters: z.object({}),
    execute: () => 'found',
  });
  return new Team([
    agent(
      'a',
      [
        { ...tool('lookup'), usage },
        { ...tool('lookup'), usage },
        { text: 'never', usage },
      ],
      { tools: [lookup], handoffs: ['b'] },
    ),
    agent('b', [hop('c', 'on to c')], { handoffs: ['c'] }),
    agent('c', [{ text: 'c answered' }]),
    agent('slow', [{ ...tool('lookup'), delayMs: 1500 }, { text: 'too late' }], { tools: [lookup] }),
    agent('hopper', [hop('c', 'simple tasks take no handoffs')], { handoffs: ['c'] }),
  ]);
}

/** lead delegates to finder (300 tokens), looks up, then answers with what it has; each of lead's calls uses 150 tokens. */
export function lastTurnTeam(): Team {
  const lookup = defineTool({
    name: 'lookup',
    description: 'Look up',
    parameters: z.object({}),
    execute: () => 'found',
  });
  return new Team([
    defineAgent({
      id: 'lead',
      instructions: 'You are lead.',
      model: scripted([
        {
          toolCalls: [{ name: 'delegate', arguments: { to: 'finder', task: 'find it', reason: 'you find things' } }],
          usage,
        },
        { ...tool('lookup'), usage },
        { text: 'what I have so far', usage },
      ]),
      tools: [lookup],
      handoffs: [delegate('finder')],
    }),
    agent('finder', [{ text: 'found it', usage: { inputTokens: 200, outputTokens: 100 } }]),
  ]);
}

/** triage (no secrets in its output) hands off to refunds, whose input takes no emails and whose output no apologies, both with feedback. */
export function guardrailsTeam(): Team {
  return new Team([
    agent(
      'triage',
      [
        hop('refunds', 'Refund order 42 for jo@example.com please, they wrote twice'),
        hop('refunds', 'Refund order 42'),
      ],
      {
        guardrails: { output: [guardrails.pattern(/secret/i, { name: 'no-secrets' })] },
      },
    ),
    agent('refunds', [{ text: 'Sorry! The secret code is 7.' }, { text: 'The secret code is 7.' }], {
      guardrails: {
        input: [guardrails.pii(['email'], { onTrip: 'feedback' })],
        output: [
          guardrails.custom({
            name: 'no-apologies',
            onTrip: 'feedback',
            check: (text) => (text.startsWith('Sorry') ? 'do not apologise' : undefined),
          }),
        ],
      },
    }),
  ]);
}

/** The refunds issueRefund ran, in order. */
export const ran: { orderId: string; amount: number }[] = [];
/** Refunds an order; a refund over 100 waits for finance's approval, for at most 3 seconds. */
const issueRefund = defineTool({
  name: 'issueRefund',
  description: 'Refund an order',
  parameters: z.object({ orderId: z.string(), amount: z.number().max(500) }),
  needsApproval: { when: { arg: 'amount', op: '>', value: 100 }, approvers: ['finance'], timeout: '3 seconds' },
  execute: (args) => (ran.push(args), `refunded ${args.amount} on ${args.orderId}`),
});
/** refunds, with issueRefund, taking `steps`. */
export const refunds = (steps: ScriptedStep[]) => new Team([agent('refunds', steps, { tools: [issueRefund] })]);
/** A step that refunds `amount` on order A1. */
export const refund = (amount: number): ScriptedStep => tool('issueRefund', { orderId: 'A1', amount });
