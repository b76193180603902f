/**
 * What a handoff costs the server's visibility store, read from the server's own metrics: the
 * search attributes and the memo record a handoff upserts in one workflow task make one visibility
 * write, not two.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Team } from '../../src';
import { freePort, startDevServer, type DevServer } from '../../src/devserver/server';
import { scriptedAgent } from '../helpers/agents';
import { withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

let server: DevServer;
beforeAll(async () => {
  server = await startDevServer({ metricsPort: await freePort() });
});
afterAll(async () => {
  await server?.teardown();
});

/** The server's count of a visibility store operation so far. */
async function visibilityRequests(operation: string): Promise<number> {
  const text = await (await fetch(server.metricsAddress!)).text();
  let total = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('visibility_persistence_requests{') && line.includes(`operation="${operation}"`))
      total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

/** Agents c0 … cN, each handing to the next; the last answers. */
function chain(handoffs: number): Team {
  return new Team(
    Array.from({ length: handoffs + 1 }, (_, i) =>
      scriptedAgent(
        `c${i}`,
        [i < handoffs ? { handoff: { to: `c${i + 1}`, message: `step ${i + 1}` } } : { text: 'done' }],
        { handoffs: i < handoffs ? [`c${i + 1}`] : [] },
      ),
    ),
  );
}

/** Visibility upserts a chain of `handoffs` makes, over `chains` chains, once every one is recorded closed. */
async function upsertsPerChain(handoffs: number, modelActivity: 'remote' | 'local', chains = 3): Promise<number> {
  return withWorker(server, chain(handoffs), async (baton) => {
    const closed = await visibilityRequests('RecordWorkflowExecutionClosed');
    const before = await visibilityRequests('UpsertWorkflowExecution');
    const ids: string[] = [];
    for (let i = 0; i < chains; i++) {
      const run = await baton.start('c0', 'go', { modelActivity });
      expect((await run.result()).output).toBe('done');
      ids.push(run.workflowId);
    }
    await waitFor(
      () => visibilityRequests('RecordWorkflowExecutionClosed'),
      (n) => n >= closed + chains,
    );
    // The store's writes are made by a queue of their own: count once the count holds still.
    let after = await visibilityRequests('UpsertWorkflowExecution');
    for (let previous = -1; after !== previous;) {
      previous = after;
      await new Promise((r) => setTimeout(r, 500));
      after = await visibilityRequests('UpsertWorkflowExecution');
    }
    // Fewer writes, and the listing still shows where each chain ended.
    for (const id of ids) {
      const listed = [];
      for await (const w of baton.client.workflow.list({ query: `WorkflowId = '${id}'` }))
        listed.push(w.searchAttributes);
      expect(listed).toEqual([
        expect.objectContaining({
          BatonHandoffs: [handoffs],
          BatonAgent: [`c${handoffs}`],
          BatonStatus: ['completed'],
        }),
      ]);
    }
    return (after - before) / chains;
  });
}

describe('visibility writes', () => {
  it('one per handoff with remote model calls: its search attributes and memo record are one write', async () => {
    const short = await upsertsPerChain(2, 'remote');
    const long = await upsertsPerChain(8, 'remote');
    // What the six more handoffs cost, whatever a chain's start and end write.
    expect((long - short) / 6).toBeCloseTo(1, 9);
  });

  it('at most one per handoff with local model calls, where handoffs share workflow tasks', async () => {
    const short = await upsertsPerChain(2, 'local');
    const long = await upsertsPerChain(8, 'local');
    expect((long - short) / 6).toBeLessThanOrEqual(1);
  });
});
