/**
 * A spend ledger asked by more chains at once than Temporal takes updates in flight. The server
 * here takes one update in flight per workflow (Temporal's default is ten), so thirty chains crowd
 * the ledger as a hundred do on a default server. One update more than the server takes is refused,
 * and the refusal clears the ledger's cached state on the server, aborting every update then in
 * flight ("workflow update was aborted"). A worker asks a ledger with one update at a time, its
 * chains' questions together, so the server refuses none; and every chain is answered, granted or
 * refused by the limit, never failed.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { scripted, Team } from '../../src';
import { SpendLimitExceededError } from '../../src/economics';
import { type DevServerOptions, freePort } from '../../src/devserver/server';
import { scriptedAgent as agent } from '../helpers/agents';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const options: DevServerOptions = { dynamicConfig: ['history.maxInFlightUpdates=1'] };
beforeAll(async () => {
  options.metricsPort = await freePort();
});
const server = useTemporalServer(options);

const CHAINS = 30;
const USAGE = { inputTokens: 3000, outputTokens: 1000 };
const CALL_MICROS = 4000;
const LIMIT = 0.05;

function meteredTeam(): Team {
  return new Team(
    [agent('worker', [], { model: scripted({ model: 'metered', steps: [{ text: 'done', usage: USAGE }] }) })],
    {
      prices: { metered: { input: 1, output: 1 } },
      spendLimits: [{ name: 'tenant-daily', keyFrom: 'tenant', limit: LIMIT, window: 'day' }],
    },
  );
}

/** The server's count of `metric` (a Prometheus counter, summed over its labels). */
async function serverCount(metric: string): Promise<number> {
  const text = await (await fetch(server.env.metricsAddress!)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${metric}{`) || l.startsWith(`${metric} `))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

describe('a spend ledger under contention, on a real server', () => {
  it(`answers each of ${CHAINS} chains asking at once, granted or refused, without an update refused or aborted`, async () => {
    const team = meteredTeam();
    const tenant = `crowd-${randomUUID()}`;
    const { ended, ledger } = await withWorker(server.env, team, async (baton) => {
      const runs = await Promise.all(
        Array.from({ length: CHAINS }, () => baton.start('worker', 'go', { context: { tenant } })),
      );
      const ended = await Promise.all(
        runs.map((r) =>
          r.result().then(
            (x) => x,
            (e: unknown) => e,
          ),
        ),
      );
      const ledgers = await waitFor(
        () => baton.economics.spendLedgers(),
        (l) => l.some((x) => x.key === tenant),
      );
      return { ended, ledger: ledgers.find((x) => x.key === tenant) };
    });
    const failed = ended
      .filter((o) => o instanceof Error && !(o instanceof SpendLimitExceededError))
      .map((e) => `${(e as Error).name}: ${(e as Error).message}`);
    expect(failed).toEqual([]);
    const answered = ended.filter((o) => !(o instanceof Error));
    const refused = ended.filter((o): o is SpendLimitExceededError => o instanceof SpendLimitExceededError);
    const fit = Math.floor((LIMIT * 1e6 - refused[0]!.neededMicros) / CALL_MICROS) + 1;
    expect(answered).toHaveLength(fit);
    expect(refused).toHaveLength(CHAINS - fit);
    expect(ledger).toMatchObject({ spentMicros: fit * CALL_MICROS, reservedMicros: 0, granted: fit });
    // The server refused no update of the ledger for those in flight, and so aborted none.
    expect(await serverCount('workflow_update_request_rate_limited')).toBe(0);
    expect(await serverCount('workflow_update_aborted')).toBe(0);
  }, 300_000);

  it('answers every chain when two workers together have more updates in flight than the server takes: refused and aborted ones are sent again', async () => {
    const team = meteredTeam();
    const tenant = `two-${randomUUID()}`;
    const refusedBefore = await serverCount('workflow_update_request_rate_limited');
    // Two workers on queues of their own, as two processes: each has an update of its own in flight to the one ledger.
    const ended = await withWorker(server.env, team, (first) =>
      withWorker(server.env, team, async (second) => {
        const runs = await Promise.all(
          Array.from({ length: CHAINS }, (_, i) =>
            (i % 2 === 0 ? first : second).start('worker', 'go', { context: { tenant } }),
          ),
        );
        return Promise.all(
          runs.map((r) =>
            r.result().then(
              (x) => x,
              (e: unknown) => e,
            ),
          ),
        );
      }),
    );
    const failed = ended
      .filter((o) => o instanceof Error && !(o instanceof SpendLimitExceededError))
      .map((e) => `${(e as Error).name}: ${(e as Error).message}`);
    expect(failed).toEqual([]);
    const refused = ended.filter((o): o is SpendLimitExceededError => o instanceof SpendLimitExceededError);
    expect(ended.length - refused.length).toBe(Math.floor((LIMIT * 1e6 - refused[0]!.neededMicros) / CALL_MICROS) + 1);
    // The crowd was real: the server refused updates for those in flight (and aborted the others with them).
    expect(await serverCount('workflow_update_request_rate_limited')).toBeGreaterThan(refusedBefore);
  }, 300_000);
});
