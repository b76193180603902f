/**
 * The drill's team: intake registers a case and routes it to billing (a refund, approved by a
 * person) or support (a question); either hands the result to notifier, who emails the customer
 * and hands back to intake to close the case. Three handoffs, four model-calling agents, three
 * tools with side effects. Model calls take `DRILL_MODEL_DELAY_MS` and tools
 * `DRILL_TOOL_DELAY_MS` (after their effect), so a SIGKILL can land in the middle of either;
 * with `DRILL_LONG_CALL_MS`, `registerCase` takes that long instead.
 */
import { z } from 'zod';
import { defineAgent, defineTool, scripted, Team, type RunOptions, type ToolContext } from '../src';
import type { ScriptedRule } from '../src/workflow';
import { applyOnce } from './effects';

const modelDelayMs = Number(process.env.DRILL_MODEL_DELAY_MS ?? 800);
const toolDelayMs = Number(process.env.DRILL_TOOL_DELAY_MS ?? 500);
/** The long-call mode of the SIGKILL drill: each chain's first tool call (`registerCase`) takes this long. */
const longCallMs = process.env.DRILL_LONG_CALL_MS ? Number(process.env.DRILL_LONG_CALL_MS) : undefined;

const model = (rules: ScriptedRule[]) =>
  scripted({
    model: 'scripted-drill',
    rules: rules.map((r) => ({ ...r, reply: { ...r.reply, delayMs: modelDelayMs } })),
  });

/** A tool whose effect is recorded in the shared log once per idempotency key. */
function effectTool<S extends z.ZodObject>(
  name: string,
  description: string,
  parameters: S,
  effect: (args: z.output<S>) => unknown,
  delayMs = toolDelayMs,
) {
  return defineTool({
    name,
    description,
    parameters,
    execute: async (args, context: ToolContext) => {
      const result = applyOnce(
        {
          key: context.idempotencyKey,
          workflowId: context.workflowId,
          agent: context.agentId,
          tool: name,
          attempt: context.attempt,
        },
        () => effect(args),
      );
      // The effect is recorded; a kill now leaves a call that must not apply it again.
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      return result;
    },
  });
}

const registerCase = effectTool(
  'registerCase',
  'Open a case for the customer',
  z.object({ route: z.enum(['billing', 'support']) }),
  ({ route }) => ({ registered: true, route }),
  longCallMs,
);
const issueCredit = effectTool(
  'issueCredit',
  'Credit the customer',
  z.object({ amount: z.number() }),
  ({ amount }) => ({ credited: true, amount }),
);
const sendEmail = effectTool(
  'sendEmail',
  'Email the customer',
  z.object({ template: z.enum(['credit', 'answer']) }),
  ({ template }) => ({
    template,
    sent: true,
  }),
);
const searchKb = defineTool({
  name: 'searchKb',
  description: 'Search the help articles',
  parameters: z.object({ topic: z.string() }),
  execute: ({ topic }) => ({ article: `How to reset your ${topic}`, steps: 3 }),
});

const intake = defineAgent({
  id: 'intake',
  instructions: 'Register the case, route it, and close it when it comes back.',
  model: model([
    {
      whenIncludes: 'was rejected',
      reply: { text: 'We could not approve your refund; a person will review your case.' },
    },
    { whenIncludes: 'case closed: credit', reply: { text: 'Your refund has been issued and confirmed by email.' } },
    { whenIncludes: 'case closed: answer', reply: { text: 'We have emailed you the answer to your question.' } },
    {
      whenIncludes: '"route":"billing"',
      reply: { handoff: { to: 'billing', message: 'Refund for a damaged parcel' } },
    },
    {
      whenIncludes: '"route":"support"',
      reply: { handoff: { to: 'support', message: 'Question about a password reset' } },
    },
    { whenIncludes: 'refund', reply: { toolCalls: [{ name: 'registerCase', arguments: { route: 'billing' } }] } },
    { whenIncludes: '', reply: { toolCalls: [{ name: 'registerCase', arguments: { route: 'support' } }] } },
  ]),
  tools: [registerCase],
  handoffs: ['billing', 'support'],
});

const billing = defineAgent({
  id: 'billing',
  instructions: 'Credit the customer, then have notifier confirm it.',
  model: model([
    {
      whenIncludes: '"credited":true',
      reply: { handoff: { to: 'notifier', message: 'Credit issued: send the confirmation' } },
    },
    { whenIncludes: '', reply: { toolCalls: [{ name: 'issueCredit', arguments: { amount: 25 } }] } },
  ]),
  tools: [issueCredit],
  handoffs: ['notifier'],
  approval: { required: true },
});

const support = defineAgent({
  id: 'support',
  instructions: 'Find the answer, then have notifier send it.',
  model: model([
    {
      whenIncludes: '"article"',
      reply: { handoff: { to: 'notifier', message: 'Answer found: send it to the customer' } },
    },
    { whenIncludes: '', reply: { toolCalls: [{ name: 'searchKb', arguments: { topic: 'password' } }] } },
  ]),
  tools: [searchKb],
  handoffs: ['notifier'],
});

const notifier = defineAgent({
  id: 'notifier',
  instructions: 'Email the customer, then hand the case back to intake.',
  model: model([
    {
      whenIncludes: '"template":"credit"',
      reply: { handoff: { to: 'intake', message: 'Case closed: credit confirmed' } },
    },
    { whenIncludes: '"template":"answer"', reply: { handoff: { to: 'intake', message: 'Case closed: answer sent' } } },
    { whenIncludes: 'credit', reply: { toolCalls: [{ name: 'sendEmail', arguments: { template: 'credit' } }] } },
    { whenIncludes: '', reply: { toolCalls: [{ name: 'sendEmail', arguments: { template: 'answer' } }] } },
  ]),
  tools: [sendEmail],
  handoffs: ['intake'],
});

/** The team the drill's workers serve. */
export const team = new Team([intake, billing, support, notifier]);

/** What the drill does with a chain's approval. */
export type Decision = 'approve' | 'reject' | 'none';

/** One chain of the drill: its input, run options and the drill's approval decision. */
export interface DrillChain {
  kind: string;
  input: string;
  options: RunOptions;
  decision: Decision;
}

/**
 * Chain `i` of a drill. Four kinds in turn: a refund the drill approves, a question (no approval),
 * a refund the drill rejects, and a refund nobody decides, rejected when its timer fires (a start
 * option may only tighten the team's approval: one a timer approves would be refused with
 * `LooseningRefusedError`, docs/authority.md).
 */
export function drillChain(i: number): DrillChain {
  switch (i % 4) {
    case 0:
      return {
        kind: 'refund',
        input: `Refund request #${i}: my parcel arrived damaged`,
        options: {},
        decision: 'approve',
      };
    case 1:
      return { kind: 'question', input: `Question #${i}: how do I reset my password?`, options: {}, decision: 'none' };
    case 2:
      return { kind: 'rejected', input: `Refund request #${i}: I changed my mind`, options: {}, decision: 'reject' };
    default:
      return {
        kind: 'timer',
        input: `Refund request #${i}: the box was empty`,
        options: { approvals: [{ to: 'billing', timeout: '4 seconds', onTimeout: 'reject' }] },
        decision: 'none',
      };
  }
}
