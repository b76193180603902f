/** `baton inbox` on a real server and worker: what waits for an approver, then decided together with --approve. */
import { describe, expect, it } from 'vitest';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { useCliSession } from '../helpers/cliSession';
import { toolApprovalTeam } from '../server/team';

const server = useTemporalServer();
const session = useCliSession();
const cli = session.cli.bind(session);

describe('baton inbox', () => {
  it('lists the calls waiting for alice, refuses bad options, and approves the page together, each call on its own', async () => {
    const env = { TEMPORAL_ADDRESS: server.env.address };
    await withWorker(server.env, toolApprovalTeam(), async (baton) => {
      const runs = [
        await baton.start('refunds', 'Refund order A1.'),
        await baton.start('refunds', 'Refund order A1 again.'),
      ];
      await waitFor(
        () => baton.inbox({ for: 'alice' }),
        (p) => runs.every((r) => p.approvals.some((a) => a.workflowId === r.workflowId)),
      );
      const listed = await cli(['inbox', '--as', 'alice', '--tool', 'issueRefund'], env);
      expect(listed.code, listed.stderr).toBe(0);
      for (const r of runs) expect(listed.stdout).toContain(r.workflowId);
      expect(listed.stdout).toContain('no deadline');
      expect((await cli(['inbox', '--as', 'bob'], env)).stdout).toContain('nothing waits for a decision');
      const bad = await cli(['inbox', '--min-age', 'soon'], env);
      expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining('--min-age must be a duration')]);
      expect((await cli(['inbox', '--approve'], env)).stderr).toContain('--approve needs --as');

      const decided = await cli(
        ['inbox', '--as', 'alice', '--tool', 'issueRefund', '--approve', '--comment', 'batch'],
        env,
      );
      expect(decided.code, decided.stderr).toBe(0);
      expect(decided.stdout).toContain('2 of 2 approved');
      for (const r of runs) expect((await r.result()).output).toBe('Refund issued.');
    });
  }, 120_000);
});
