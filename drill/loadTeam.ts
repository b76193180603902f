/**
 * The load drill's team: triage looks the customer up (a tool call) and hands the case to
 * resolver, who answers. Scripted models with no delay, so the drill measures baton and Temporal,
 * not a model. When the handoff waits for approval and is rejected, triage answers itself.
 */
import { z } from 'zod';
import { defineAgent, defineTool, scripted, Team } from '../src';
import type { ApprovalRule } from '../src/workflow';

const lookupCustomer = defineTool({
  name: 'lookupCustomer',
  description: 'Find the customer of a case',
  parameters: z.object({ caseId: z.number().int() }),
  execute: ({ caseId }) => ({ caseId, plan: caseId % 3 === 0 ? 'pro' : 'basic' }),
});

/** What a chain answers when its handoff went ahead, and when it was rejected. */
export const LOAD_OUTPUT = { resolved: 'resolved by resolver', rejected: 'triage answered itself' } as const;

/** The handoff every chain makes. */
export const LOAD_HANDOFF = { from: 'triage', to: 'resolver', message: 'customer found: please resolve' } as const;

export const loadTeam = new Team([
  defineAgent({
    id: 'triage',
    instructions: 'Look the customer up, then hand the case to resolver.',
    model: scripted({
      model: 'scripted-load',
      steps: [
        { toolCalls: [{ name: 'lookupCustomer', arguments: { caseId: 7 } }] },
        { handoff: { to: LOAD_HANDOFF.to, message: LOAD_HANDOFF.message } },
        { text: LOAD_OUTPUT.rejected },
      ],
      requireAllSteps: false,
    }),
    tools: [lookupCustomer],
    handoffs: ['resolver'],
  }),
  defineAgent({
    id: 'resolver',
    instructions: 'Resolve the case.',
    model: scripted({ model: 'scripted-load', steps: [{ text: LOAD_OUTPUT.resolved }] }),
  }),
]);

/** The run rule that makes the handoff wait for a person (no timeout: it waits until decided). */
export const LOAD_APPROVAL: ApprovalRule = { to: 'resolver', approvers: ['load-drill'] };
