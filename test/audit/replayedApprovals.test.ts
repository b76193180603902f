/**
 * A replayed chain's audit on a real server: a tool call approved in the run that failed runs again
 * in the replay under the decision the replay carries, and the audit names that decision on the
 * call's event in the replayed run, as it did in the run it replays; its export verifies.
 */
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, Team, ToolExecutionError } from '../../src';
import { exportAudit, verifyAuditExport, type AuditEvent } from '../../src/audit';
import { scriptedAgent as agent } from '../helpers/agents';
import { recordingScripted } from '../helpers/models';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const server = useTemporalServer();

describe('the audit of a replayed chain', () => {
  it(
    'links a tool call the replay ran again under the carried decision to that decision',
    { timeout: 120_000 },
    async () => {
      let broken = true;
      const refund = defineTool({
        name: 'refund',
        description: 'Refund an order',
        parameters: z.object({ orderId: z.string() }),
        needsApproval: { approvers: ['alice'] },
        execute: ({ orderId }) => {
          if (broken) throw ApplicationFailure.nonRetryable('the payment provider refused', 'ProviderError');
          return `refunded ${orderId}`;
        },
      });
      const { providers } = recordingScripted();
      const team = new Team([
        agent('desk', [{ toolCalls: [{ name: 'refund', arguments: { orderId: '7' } }] }, { text: 'refunded' }], {
          tools: [refund],
        }),
      ]);
      await withWorker(
        server.env,
        team,
        async (baton) => {
          const run = await baton.start('desk', 'refund order 7');
          const [waiting] = await waitFor(
            () => run.pendingApprovals(),
            (p) => p.length === 1,
          );
          await baton.approve(run.workflowId, waiting!.handoffId, { approver: 'alice' });
          expect(await run.result().catch((e: unknown) => e)).toBeInstanceOf(ToolExecutionError);

          broken = false;
          // With overrides the replay resumes from rebuilt state in a new run, carrying the decision.
          const replayed = await baton.replay(run.workflowId, { overrides: { options: { maxHandoffs: 3 } } });
          expect(replayed).toMatchObject({ mechanism: 'resume' });
          expect((await baton.getRun(run.workflowId).result()).output).toBe('refunded');

          const audit = await baton.audit(run.workflowId);
          const ran = audit.events.filter(
            (e): e is Extract<AuditEvent, { kind: 'tool_call' }> =>
              e.kind === 'tool_call' && e.tool === 'refund' && e.execution?.status !== 'not_scheduled',
          );
          expect(ran.map((e) => [e.runId, e.execution?.status, e.approval])).toEqual([
            [replayed.baseRunId, 'failed', waiting!.handoffId],
            [replayed.runId, 'completed', waiting!.handoffId],
          ]);
          // The export verifies: the replay's call ran under the decision it carried, once in its run.
          expect(verifyAuditExport(exportAudit(audit), { acceptUntrustedHead: true })).toMatchObject({
            ok: true,
            approvedCalls: 2,
          });
        },
        { providers },
      );
    },
  );
});
