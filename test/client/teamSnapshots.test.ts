/**
 * The team snapshots the client redacts sensitive tool arguments with (src/client/sensitive.ts),
 * on a real server and worker: a read that failed is not kept as the run's answer.
 */
import { describe, expect, it } from 'vitest';
import { defineAgent, scripted, Team } from '../../src';
import { withCallsAborted } from '../../src/client/callSignal';
import { TeamSnapshots } from '../../src/client/sensitive';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { paymentsTeam } from '../server/sensitive.fixtures';

const server = useTemporalServer();

describe('TeamSnapshots', () => {
  it("reads a run's team again after a read of it failed, so its sensitive arguments are redacted", async () => {
    // The payments team's tools, whose arguments are sensitive, on an agent that answers at once.
    const tools = [...new Map(paymentsTeam().agents.flatMap((a) => a.tools.map((t) => [t.name, t]))).values()];
    const team = new Team([
      defineAgent({ id: 'payments', instructions: 'Pay', tools, model: scripted([{ text: 'done' }]) }),
    ]);
    const { client } = server.env;
    const { workflowId, runId } = await withWorker(server.env, team, async (baton) => {
      const run = await baton.start(team.agents[0]!.id, 'hi');
      await run.result();
      return { workflowId: run.workflowId, runId: (await client.workflow.getHandle(run.workflowId).describe()).runId };
    });
    const teams = new TeamSnapshots(client);
    // The first read is cancelled as it starts: nothing is known of the run's team then.
    const abort = new AbortController();
    const cancelled = withCallsAborted(client.connection, abort.signal, () => teams.of(workflowId, runId));
    abort.abort();
    expect((await cancelled).team).toBeUndefined();
    const read = await teams.of(workflowId, runId);
    expect(read.any).toBe(true);
    expect(read.of(undefined, 'refundCard')?.arguments).toEqual(['cardNumber']);
  });
});
