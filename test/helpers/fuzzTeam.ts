/**
 * The team the property-based runs drive: three agents on scripted models whose answers are
 * generated per run. The team declares each model as `scripted` with no steps; the worker's
 * `scripted` provider (from {@link fuzzProviders}) answers each call with the real
 * {@link ScriptedProvider} on the spec generated for that chain and agent, so one worker serves
 * every generated behaviour and each answer is still a deterministic scripted answer.
 *
 * No vitest here: the fuzzing drill (drill/fuzz.ts) uses it too.
 */
import { Context } from '@temporalio/activity';
import { z } from 'zod';
import { defineAgent, defineTool, scripted, Team, ToolError } from '../../src';
import type { ScriptedModelSpec } from '../../src/workflow';
import { toApplicationFailure, UnexpectedModelCallError } from '../../src/common/errors';
import type { ModelProviders } from '../../src/models/provider';
import { ScriptedProvider } from '../../src/models/scripted';

/** The agents and what each may hand off to: `a` to itself too, `b` not to itself, `c` with per-target tools. */
export const FUZZ_TARGETS = { a: ['a', 'b', 'c'], b: ['a', 'c'], c: ['a', 'b'] } as const;
export type FuzzAgent = keyof typeof FUZZ_TARGETS;
export const FUZZ_AGENTS = Object.keys(FUZZ_TARGETS) as FuzzAgent[];
/** Agents whose handoff tools are `transfer_to_<id>({message})` rather than `handoff({to, message})`. */
export const PER_TARGET_AGENTS: readonly FuzzAgent[] = ['c'];
/** Refunds above this amount wait for a person's approval of the call. */
export const REFUND_APPROVAL_ABOVE = 100;

const lookup = defineTool({
  name: 'lookup',
  description: 'Find a record by its number',
  parameters: z.object({ id: z.number().int() }),
  execute: ({ id }) => ({ id, found: id % 2 === 0 }),
});

const refuse = defineTool({
  name: 'refuse',
  description: 'A tool that refuses its call with a ToolError the model sees',
  parameters: z.object({ reason: z.string() }),
  execute: ({ reason }) => {
    throw new ToolError(`refused: ${reason.slice(0, 40)}`);
  },
});

const explode = defineTool({
  name: 'explode',
  description: 'A tool that crashes (retried by the run policy, then ToolExecutionError)',
  parameters: z.object({}),
  execute: () => {
    throw new Error('the tool crashed');
  },
});

const refund = defineTool({
  name: 'refund',
  description: 'Refund an amount; large refunds need approval',
  parameters: z.object({ amount: z.number() }),
  needsApproval: { when: { arg: 'amount', op: '>', value: REFUND_APPROVAL_ABOVE } },
  execute: ({ amount }) => ({ refunded: amount }),
});

/** Tools by agent. */
export const FUZZ_TOOLS: Record<FuzzAgent, string[]> = {
  a: ['lookup', 'explode', 'refund'],
  b: ['lookup', 'refuse'],
  c: ['lookup', 'refund'],
};
const TOOLS = { lookup, refuse, explode, refund };

/** The property runs' team. */
export const fuzzTeam = new Team(
  FUZZ_AGENTS.map((id) =>
    defineAgent({
      id,
      instructions: `You are ${id}.`,
      model: scripted({ model: 'fuzz', steps: [], requireAllSteps: false }),
      tools: FUZZ_TOOLS[id].map((name) => TOOLS[name as keyof typeof TOOLS]),
      handoffs: [...FUZZ_TARGETS[id]],
      ...(PER_TARGET_AGENTS.includes(id) ? { handoffTools: 'per_target' as const } : {}),
    }),
  ),
);

/** The generated scripted model of each agent, by workflow id. */
const behaviours = new Map<string, Partial<Record<string, ScriptedModelSpec>>>();

/** Answer the chain `workflowId`'s model calls with these specs (by agent) from now on. */
export function setBehaviour(workflowId: string, models: Partial<Record<string, ScriptedModelSpec>>): void {
  behaviours.set(workflowId, models);
}

/** Forget a finished chain's specs. */
export function clearBehaviour(workflowId: string): void {
  behaviours.delete(workflowId);
}

/**
 * Model providers for a worker in this process: `scripted` answers from the spec generated for the
 * calling chain (found through the activity's workflow id), by the real scripted provider.
 */
export function fuzzProviders(): ModelProviders {
  const real = new ScriptedProvider();
  return {
    scripted: {
      call: (input, context) => {
        const workflowId = Context.current().info.workflowExecution?.workflowId ?? '';
        const spec = behaviours.get(workflowId)?.[input.agentId];
        if (!spec)
          throw toApplicationFailure(
            new UnexpectedModelCallError(input.agentId, input.callIndex, `no behaviour for ${workflowId}`),
          );
        return real.call({ ...input, model: spec }, context);
      },
    },
  };
}
