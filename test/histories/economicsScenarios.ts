/**
 * Recorded chains with economics: costs with a money budget and a specialist, and the spend limit
 * and shared breaker a chain reaches (their own workflows' histories recorded beside it).
 */
import { z } from 'zod';
import { defineTool, delegate, scripted, Team, ToolError, type Baton } from '../../src';
import { breakerId } from '../../src/common/economics/spec';
import { scriptedAgent as agent } from '../helpers/agents';
import type { Scenario } from './scenarios';

/** A scenario whose chain reaches workflows of their own, recorded beside it as `<name>.<suffix>.json`. */
export interface SharedScenario extends Scenario {
  shared: (baton: Baton, workflowId: string) => Promise<{ suffix: string; workflowId: string }[]>;
}

const usage = (inputTokens: number, outputTokens: number) => ({ usage: { inputTokens, outputTokens } });

/** Costs by agent, edge and delegation, and a `maxCost` that gives the agent its last turn. */
export const costsScenario: Scenario = {
  name: 'costs',
  withSpecialists: true,
  team: () => {
    const lookup = defineTool({
      name: 'lookup',
      description: 'Look up',
      parameters: z.object({}),
      execute: () => 'found',
    });
    return new Team(
      [
        agent('triage', [], {
          model: scripted({
            model: 'small',
            steps: [{ handoff: { to: 'refunds', message: 'refund 42' }, ...usage(1000, 200) }],
          }),
        }),
        agent('refunds', [], {
          model: scripted({
            model: 'large',
            steps: [
              {
                toolCalls: [{ name: 'delegate', arguments: { to: 'checker', task: 'check 42' } }],
                ...usage(1500, 100),
              },
              { toolCalls: [{ name: 'lookup', arguments: {} }], ...usage(2000, 50) },
              { text: 'refunded', ...usage(2500, 50) },
            ],
          }),
          tools: [lookup],
          handoffs: [delegate('checker', { maxCost: 0.01 })],
        }),
        agent('checker', [], { model: scripted({ model: 'small', steps: [{ text: 'fine', ...usage(300, 20) }] }) }),
      ],
      { prices: { small: { input: 1, cachedInput: 0.5, output: 2 }, large: { input: 3, output: 15 } } },
    );
  },
  drive: async (b) => {
    const run = await b.start('triage', 'refund please', { maxCost: 0.075, onBudgetExceeded: 'final_answer' });
    await run.result();
    return run.workflowId;
  },
};

/** A chain under a tenant's spend limit, handing off through a shared breaker to a target whose tool fails once. */
export const sharedEconomicsScenario: SharedScenario = {
  name: 'shared-economics',
  team: () => {
    let calls = 0;
    const ledger = defineTool({
      name: 'ledger',
      description: 'Write to the ledger',
      parameters: z.object({}),
      execute: () => {
        if (calls++ === 0) throw new ToolError('ledger unavailable');
        return 'written';
      },
    });
    return new Team(
      [
        agent('triage', [], {
          model: scripted({
            model: 'metered',
            steps: [{ handoff: { to: 'refunds', message: 'refund 7' }, ...usage(800, 40) }],
          }),
        }),
        agent('refunds', [], {
          model: scripted({
            model: 'metered',
            steps: [
              { toolCalls: [{ name: 'ledger', arguments: {} }], ...usage(900, 30) },
              { toolCalls: [{ name: 'ledger', arguments: {} }], ...usage(950, 30) },
              { text: 'refunded', ...usage(1000, 10) },
            ],
          }),
          tools: [ledger],
        }),
      ],
      {
        prices: { metered: { input: 1, output: 1 } },
        spendLimits: [{ name: 'tenant-daily', keyFrom: 'tenant', limit: 1, window: 'day' }],
        sharedBreakers: { threshold: 3, cooldown: '1 minute' },
      },
    );
  },
  drive: async (b) => {
    const run = await b.start('triage', 'refund please', { context: { tenant: 'recorded-tenant' } });
    await run.result();
    return run.workflowId;
  },
  shared: async (b) => {
    const ledgers = await waitForList(
      () => b.economics.spendLedgers(),
      (l) => l.some((x) => x.key === 'recorded-tenant' && x.openReservations === 0 && x.granted === 4),
    );
    const ledger = ledgers.find((x) => x.key === 'recorded-tenant')!;
    const breaker = breakerId(`queue:${b.taskQueue}`, 'refunds');
    await waitForList(
      () => b.economics.breaker(`queue:${b.taskQueue}`, 'refunds').then((v) => (v ? [v] : [])),
      (v) => v.some((x) => x.lastFailure !== undefined),
    );
    return [
      { suffix: 'ledger', workflowId: ledger.workflowId },
      { suffix: 'breaker', workflowId: breaker },
    ];
  },
};

async function waitForList<T>(read: () => Promise<T[]>, done: (v: T[]) => boolean): Promise<T[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const v = await read();
    if (done(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}
