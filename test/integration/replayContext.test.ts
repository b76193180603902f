/**
 * A replay with overrides (and a migration, which goes the same way) keeps the chain's context and
 * the options it runs with: its tools see the context, a team whose spend limit is kept per tenant
 * takes the replay, and what reads the replayed chain (an eval, a dataset line) sees the options and
 * context it ran with.
 */
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, scripted, Team, ToolExecutionError } from '../../src';
import { lineFromChain } from '../../src/eval';
import { scriptedAgent as agent } from '../helpers/agents';
import { cli, tempFile } from '../cli/command';
import { taskQueue, useTemporalServer, withWorker } from '../helpers/temporal';

const server = useTemporalServer();

/** The contexts the quote tool was called with, and whether it fails. */
const seen: unknown[] = [];
let broken = true;

function pricedTeam(): Team {
  const quote = defineTool({
    name: 'quote',
    description: 'Quote a price',
    parameters: z.object({ seats: z.number() }),
    execute: ({ seats }, ctx) => {
      seen.push(ctx.context);
      if (broken) throw ApplicationFailure.nonRetryable('pricing service down', 'PricingError');
      return `${seats} seats: 90`;
    },
  });
  return new Team(
    [
      agent('sales', [], {
        tools: [quote],
        model: scripted({
          model: 'metered',
          steps: [{ toolCalls: [{ name: 'quote', arguments: { seats: 3 } }] }, { text: 'Quote: 3 seats for 90' }],
        }),
      }),
    ],
    {
      prices: { metered: { input: 1, output: 1 } },
      spendLimits: [{ name: 'tenant-daily', keyFrom: 'tenant', limit: 100, window: 'day' }],
    },
  );
}

describe('replay with overrides', () => {
  it("keeps the chain's context for its tools and its spend limit, and what reads the chain sees the options it ran with", async () => {
    const tenant = `acme-${randomUUID()}`;
    await withWorker(server.env, pricedTeam(), async (baton) => {
      broken = true;
      const run = await baton.start('sales', 'quote 3 seats', { context: { tenant }, maxTurns: 3 });
      await expect(run.result()).rejects.toBeInstanceOf(ToolExecutionError);

      broken = false;
      seen.length = 0;
      const replayed = await baton.replay(run.workflowId, { overrides: { options: { maxTurns: 5 } } });
      expect(replayed.mechanism).toBe('resume');
      expect((await baton.getRun(run.workflowId).result()).output).toBe('Quote: 3 seats for 90');
      expect(seen).toEqual([{ tenant }]);

      const line = await lineFromChain(baton.client, run.workflowId, 'good');
      expect(line).toMatchObject({
        agent: 'sales',
        input: 'quote 3 seats',
        options: { maxTurns: 5 },
        context: { tenant },
      });
    });
  });

  it('from the CLI: the replayed chain goes on with its context, and baton dataset add saves the options it ran with', async () => {
    const tenant = `globex-${randomUUID()}`;
    const queue = taskQueue();
    const env = { TEMPORAL_ADDRESS: server.env.address };
    await withWorker(
      server.env,
      pricedTeam(),
      async (baton) => {
        broken = true;
        const run = await baton.start('sales', 'quote 3 seats', { context: { tenant }, maxTurns: 3, maxHandoffs: 2 });
        await expect(run.result()).rejects.toBeInstanceOf(ToolExecutionError);

        broken = false;
        seen.length = 0;
        const replay = await cli(['replay', run.workflowId, '--max-turns', '6', '--task-queue', queue], env);
        expect(replay.stderr).toBe('');
        expect(replay.code).toBe(0);
        expect(replay.stdout).toContain('Quote: 3 seats for 90');
        expect(seen).toEqual([{ tenant }]);

        const file = tempFile('cases.jsonl', '');
        const saved = await cli(['dataset', 'add', run.workflowId, '--good', '--dataset', file], env);
        expect(saved.code).toBe(0);
        const [line] = fs
          .readFileSync(file, 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as Record<string, unknown>);
        expect(line).toMatchObject({ options: { maxTurns: 6, maxHandoffs: 2 }, context: { tenant } });
      },
      { taskQueue: queue },
    );
  });
});
