/**
 * Following a chain whose history holds signals near Temporal's payload limit, on a real server:
 * a page of the server's size is then over gRPC's 4 MB message limit. `run.events()` (and so
 * `run.stream()` and the follower) asks for it again in smaller pages and goes on to the end.
 */
import { Client, Connection } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { approveHandoffSignal } from '../../src/workflow';
import { scriptedAgent as agent } from '../helpers/agents';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { Team } from '../../src';
import { runEvents } from '../../src/client/events';

const server = useTemporalServer();

describe('a chain whose history pages are too large to receive', () => {
  it('is followed from its start to its end', { timeout: 180_000 }, async () => {
    const team = new Team([
      agent('front', [{ handoff: { to: 'vault', message: 'open it' } }], { handoffs: ['vault'] }),
      agent('vault', [{ text: 'opened' }], { approval: { approvers: ['alice'] } }),
    ]);
    await withWorker(server.env, team, async (baton) => {
      const run = await baton.start('front', 'open the vault');
      const [waiting] = await waitFor(
        () => run.pendingApprovals(),
        (p) => p.length === 1,
      );
      const firstRun = (await run.handle.describe()).runId;
      // Four refused decisions of 1.5 MB each: 6 MB of history in the first page.
      // Sent at once, they arrive before the workflow's next task, all in the same run.
      await Promise.all(
        [0, 1, 2, 3].map((i) =>
          run.handle.signal(approveHandoffSignal, {
            handoffId: `no-such-${i}`,
            approver: 'mallory',
            comment: 'x'.repeat(1_500_000),
          }),
        ),
      );
      await baton.approve(run.workflowId, waiting!.handoffId, { approver: 'alice' });
      expect((await run.result()).output).toBe('opened');
      const kinds: string[] = [];
      // From the run that took the signals (the chain hands over to a new run once it refused 1 MB), across its continue-as-new.
      // Through a Connection at its defaults (4 MB a message), as a service's own may be: connectBaton's takes such pages whole.
      const connection = await Connection.connect({ address: server.env.address });
      try {
        const client = new Client({ connection });
        for await (const e of runEvents(client.workflow, run.workflowId, firstRun)) kinds.push(e.kind);
      } finally {
        await connection.close();
      }
      expect(kinds.at(-1)).toBe('completed');
      expect(kinds).toContain('handoff');
    });
  });
});
