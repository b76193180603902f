/**
 * Property-based invariants on a real Temporal server and worker: chains whose scripted models,
 * run options and approval decisions are generated (test/helpers/fuzzScenario.ts) keep the
 * invariants of test/helpers/fuzzRun.ts whether they complete or fail. A few runs here; the
 * fuzzing drill (`npm run drill -- fuzz`) runs many more.
 *
 * A failure prints fast-check's seed and path: `BATON_FUZZ_SEED=<seed> npx vitest run test/property`
 * repeats the same scenarios.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, Team } from '../../src';
import { EmptyOutputError } from '../../src/workflow';
import { scriptedAgent } from '../helpers/agents';
import { fuzzRunner } from '../helpers/fuzzRun';
import { fuzzScenario } from '../helpers/fuzzScenario';
import { fuzzProviders, fuzzTeam } from '../helpers/fuzzTeam';
import { useTemporalServer, withWorker } from '../helpers/temporal';

const server = useTemporalServer();
const seed = Number(process.env.BATON_FUZZ_SEED ?? Date.now() % 2 ** 31);
const runs = Number(process.env.BATON_FUZZ_RUNS ?? 40);

describe('invariants of generated chains', () => {
  it(`hold for generated models, options and approval decisions (seed ${seed})`, { timeout: 240_000 }, async () => {
    await withWorker(
      server.env,
      fuzzTeam,
      async (baton) => {
        await fc.assert(fc.asyncProperty(fuzzScenario, fuzzRunner(baton, `prop-${seed}`)), {
          seed,
          numRuns: runs,
          // Shrinking reruns chains on the server: keep it bounded, the seed reproduces the rest.
          interruptAfterTimeLimit: 150_000,
          markInterruptAsFailure: false,
        });
      },
      { providers: fuzzProviders() },
    );
  });
});

describe('defects the property runs found', () => {
  /**
   * Found by the fuzzing drill (seed 8142): with `maxTurns: 1` and `onBudgetExceeded:
   * 'final_answer'`, a model that keeps calling a tool got its one turn, the final turn without
   * tools (its tool call refused, so the answer was empty), then the empty-answer nudge and a third
   * model call. The final turn is the last: an empty answer there fails the run at once.
   */
  it("a final answer turn is the activation's last model call, even when it answers empty", async () => {
    const lookup = defineTool({
      name: 'lookup',
      description: 'Find a record',
      parameters: z.object({ id: z.number() }),
      execute: ({ id }) => ({ id }),
    });
    const agent = scriptedAgent('a', [], {
      tools: [lookup],
      model: {
        provider: 'scripted',
        model: 'scripted',
        steps: [],
        rules: [{ whenIncludes: '', reply: { toolCalls: [{ name: 'lookup', arguments: { id: 4 } }] } }],
        requireAllSteps: false,
      },
    });
    await withWorker(server.env, new Team([agent]), async (baton) => {
      const run = await baton.start('a', 'hello', { maxTurns: 1, onBudgetExceeded: 'final_answer' });
      await expect(run.result()).rejects.toBeInstanceOf(EmptyOutputError);
      const modelTurns = (await baton.audit(run.workflowId)).events.filter((e) => e.kind === 'model_turn').length;
      expect(modelTurns).toBe(2);
    });
  });
});
