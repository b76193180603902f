/**
 * The chains whose recorded histories CI replays against the current workflow code. Each scenario
 * drives one chain (or a replay of one) on a real server; `record.ts` saves their histories.
 */
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { defineAgent, defineTool, guardrails, handoff, scripted, Team, type Baton, type BatonRun } from '../../src';
import type { DevServer } from '../../src/devserver/server';
import type { ModelProviders } from '../../src/models/provider';
import { scriptedAgent as agent } from '../helpers/agents';

/** A scripted handoff to `to`. */
export const hop = (to: string, message = `over to ${to}`) => ({ handoff: { to, message } });

let carrierDown = true;
const lookup = defineTool({
  name: 'lookup',
  description: 'Look up',
  parameters: z.object({ q: z.string() }),
  execute: ({ q }) => ({ found: q }),
});
const ship = defineTool({
  name: 'ship',
  description: 'Ship',
  parameters: z.object({}),
  execute: () => {
    if (carrierDown) throw ApplicationFailure.nonRetryable('carrier down', 'CarrierError');
    return 'shipped';
  },
});

/** The first approval `run` waits for, once one waits. */
export const pending = async (run: BatonRun) => {
  for (;;) {
    const p = await run.pendingApprovals();
    if (p.length > 0) return p[0]!;
    await new Promise((r) => setTimeout(r, 50));
  }
};

/** One recorded scenario: a team and the chain to drive; resolves to the workflow id. */
export interface Scenario {
  name: string;
  team: () => Team;
  /** Drive the chain (or workflow) to record; `env` for scenarios that run workers of their own. */
  drive: (baton: Baton, env: DevServer) => Promise<string>;
  /** Record the histories of the chain's specialists too (workflow ids under `<id>/`). */
  withSpecialists?: boolean;
  /** Record the workflow id with the history, for what checks it (signatures name their chain). */
  withWorkflowId?: boolean;
  /** Model providers the worker needs besides baton's own. */
  providers?: () => ModelProviders;
  /** What must run before the team is made (another team's service); resolves to what stops it. */
  prepare?: (env: DevServer) => Promise<() => Promise<void>>;
}

export const scenarios: Scenario[] = [
  {
    name: 'two-agent-handoff',
    team: () => new Team([agent('researcher', [hop('writer', 'facts')]), agent('writer', [{ text: 'article' }])]),
    drive: async (b) => (await b.run('researcher', 'quantum')).workflowId,
  },
  {
    name: 'tools-and-handoffs',
    team: () =>
      new Team([
        agent(
          'a',
          [
            {
              toolCalls: [
                { name: 'lookup', arguments: { q: 'x' } },
                { name: 'lookup', arguments: { q: 'y' } },
              ],
            },
            hop('b'),
          ],
          { tools: [lookup] },
        ),
        agent('b', [
          {
            toolCalls: [
              { name: 'handoff', arguments: { to: 'c', message: 'first' } },
              { name: 'handoff', arguments: { to: 'a', message: 'ignored' } },
            ],
          },
        ]),
        agent('c', [{ text: 'done', failAttempts: 1 }]),
      ]),
    drive: async (b) => (await b.run('a', 'go', { retry: { initialInterval: '100 ms' } })).workflowId,
  },
  {
    name: 'max-handoffs-failed',
    team: () => new Team([agent('a', [hop('b'), hop('b')]), agent('b', [hop('a'), hop('a')])]),
    drive: async (b) => {
      const run = await b.start('a', 'go', { maxHandoffs: 2 });
      await run.result().catch(() => undefined);
      return run.workflowId;
    },
  },
  {
    name: 'approval-approved-and-refused',
    team: () =>
      new Team([agent('a', [hop('b')]), agent('b', [{ text: 'ok' }], { approval: { approvers: ['alice'] } })]),
    drive: async (b) => {
      const run = await b.start('a', 'go');
      const p = await pending(run);
      await run.handle.signal('approveHandoff', { handoffId: p.handoffId, approver: 'mallory' });
      await b.approve(run.workflowId, p.handoffId, { approver: 'alice', comment: 'fine' });
      await run.result();
      return run.workflowId;
    },
  },
  {
    name: 'approval-rejected-by-signal',
    team: () =>
      new Team([
        defineAgent({ id: 'a', instructions: 'a', model: scripted({ steps: [hop('b'), { text: 'did it myself' }] }) }),
        agent('b', [], { approval: {} }),
      ]),
    drive: async (b) => {
      const run = await b.start('a', 'go');
      const p = await pending(run);
      await run.handle.signal('rejectHandoff', { handoffId: p.handoffId, approver: 'bob', reason: 'no' });
      await run.result();
      return run.workflowId;
    },
  },
  {
    name: 'approval-timeout-approves',
    team: () =>
      new Team([
        agent('a', [hop('b')]),
        agent('b', [{ text: 'ok' }], { approval: { timeout: '1 second', onTimeout: 'approve' } }),
      ]),
    drive: async (b) => (await b.run('a', 'go')).workflowId,
  },
  {
    name: 'replay-after-tool-failure',
    team: () =>
      new Team([
        agent('a', [hop('b')]),
        agent('b', [{ toolCalls: [{ name: 'ship', arguments: {} }] }, { text: 'shipped it' }], { tools: [ship] }),
      ]),
    drive: async (b) => {
      carrierDown = true;
      const run = await b.start('a', 'go');
      await run.result().catch(() => undefined);
      carrierDown = false;
      await b.replay(run.workflowId);
      await b.getRun(run.workflowId).result();
      return run.workflowId;
    },
  },
];

/** What a handoff carries: per-target tools, typed input, shared state, a summary, an isEnabled rule and an onHandoff veto. */
export const handoffOptionsScenario: Scenario = {
  name: 'handoff-options',
  team: () =>
    new Team(
      [
        defineAgent({
          id: 'a',
          instructions: 'A',
          tools: [lookup],
          model: scripted({
            steps: [
              { toolCalls: [{ name: 'transfer_to_b', arguments: { message: 'early' } }] },
              { toolCalls: [{ name: 'lookup', arguments: { q: 'x' } }] },
              { toolCalls: [{ name: 'transfer_to_c', arguments: { message: 'vetoed' } }] },
              {
                toolCalls: [
                  {
                    name: 'transfer_to_b',
                    arguments: { message: 'for b', input: { orderId: '7' }, update: { context: { customer: 'ada' } } },
                  },
                ],
              },
            ],
            rules: [{ whenIncludes: 'user: go', reply: { text: 'a summary' } }],
          }),
          handoffs: [
            handoff('b', {
              isEnabled: { afterTools: ['lookup'] },
              inputType: z.object({ orderId: z.string() }),
              context: 'full',
              filter: { summarize: true },
              input: 'rich',
            }),
            handoff('c', { onHandoff: () => 'closed' }),
          ],
        }),
        agent('b', [{ toolCalls: [{ name: 'readState', arguments: {} }] }, { text: 'b answers' }]),
        agent('c', []),
      ],
      { handoffTools: 'per_target', sharedState: true },
    ),
  drive: async (b) => (await b.run('a', 'go')).workflowId,
};

/** A long chain that continues as new; every run's history is recorded. */
export const continueAsNewScenario: Scenario = {
  name: 'continue-as-new',
  team: () =>
    new Team([
      agent(
        'a',
        Array.from({ length: 4 }, () => hop('b')),
      ),
      agent('b', [...Array.from({ length: 3 }, () => hop('a')), { text: 'long chain done' }]),
    ]),
  drive: async (b) => (await b.run('a', 'go', { continueAsNewAfterEvents: 30, loopWindow: 0 })).workflowId,
};

/**
 * The controls in one chain: a tool call approved with edited arguments, an input guardrail's
 * feedback, a loop refused, an output guardrail's feedback, usage per agent.
 */
export const controlsScenario: Scenario = {
  name: 'controls',
  team: () => {
    const refund = defineTool({
      name: 'refund',
      description: 'Refund',
      parameters: z.object({ amount: z.number() }),
      needsApproval: { when: { arg: 'amount', op: '>', value: 100 } },
      execute: ({ amount }) => `refunded ${amount}`,
    });
    return new Team([
      agent(
        'a',
        [
          { toolCalls: [{ name: 'refund', arguments: { amount: 250 } }] },
          hop('b', 'write to jo@example.com'),
          hop('b', 'summarize'),
          hop('b', 'summarize'),
          { text: 'a wraps up' },
          { text: 'done' },
        ],
        { tools: [refund], guardrails: { output: [guardrails.maxLength(5, { onTrip: 'feedback' })] } },
      ),
      agent('b', [hop('a', 'back to you')], {
        guardrails: { input: [guardrails.pii(['email'], { onTrip: 'feedback' })] },
      }),
    ]);
  },
  drive: async (b) => {
    const run = await b.start('a', 'go', { onLoop: 'refuse' });
    const p = await pending(run);
    await run.handle.executeUpdate('decideHandoff', {
      args: [{ handoffId: p.handoffId, approver: 'alice', decision: 'approve', arguments: { amount: 200 } }],
    });
    await run.result();
    return run.workflowId;
  },
};

/** Model calls as local activities, a tool call and a handoff between them; the team snapshot is a local activity too. */
export const localModelCallsScenario: Scenario = {
  name: 'local-model-calls',
  team: () =>
    new Team([
      agent('a', [{ toolCalls: [{ name: 'lookup', arguments: { q: 'x' } }] }, hop('b', 'found it')], {
        tools: [lookup],
      }),
      agent('b', [{ text: 'b answers' }], { modelActivity: 'remote' }),
    ]),
  drive: async (b) => (await b.run('a', 'go', { modelActivity: 'local' })).workflowId,
};
