/**
 * Hostile input as a property, on a real Temporal server and worker: generated oversized and
 * malformed fields sent by signal, update and through the HTTP service to a chain waiting for an
 * approval and to a conversation (test/helpers/hostile.ts), then one valid decision and one valid
 * message. A few cases here; the fuzzing drill (`npm run drill -- fuzz`) sends many more.
 *
 * A failure prints fast-check's seed: `BATON_FUZZ_SEED=<seed> npx vitest run test/property/hostile.test.ts`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hostileRunner, hostileTeam, type HostileReport } from '../helpers/hostile';
import { hostileScenario } from '../helpers/hostileCases';
import { useTemporalServer, withWorker } from '../helpers/temporal';

const server = useTemporalServer();
const seed = Number(process.env.BATON_FUZZ_SEED ?? Date.now() % 2 ** 31);
const runs = Number(process.env.BATON_HOSTILE_RUNS ?? 6);

describe('hostile input from any client', () => {
  it(
    `ends no chain and no conversation, and each completes after one valid decision or message (seed ${seed})`,
    { timeout: 240_000 },
    async () => {
      const reports: HostileReport[] = [];
      await withWorker(server.env, hostileTeam(), async (baton) => {
        await fc.assert(
          fc.asyncProperty(
            hostileScenario,
            hostileRunner(baton, `hostile-${seed}`, (r) => reports.push(...r)),
          ),
          {
            seed,
            numRuns: runs,
            // Shrinking reruns targets on the server: keep it bounded, the seed reproduces the rest.
            interruptAfterTimeLimit: 150_000,
            markInterruptAsFailure: false,
          },
        );
      });
      expect(reports.length).toBeGreaterThan(0);
      expect(reports.filter((r) => r.endedByThem)).toEqual([]);
    },
  );
});
