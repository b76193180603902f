/**
 * An approved tool call refused by workers that lack the chain's team, then run by one that has
 * it, on a real server: the audit shows one call (the refusals never ran it), and its export
 * verifies — the call ran once under its approval, however often its step was scheduled.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Baton, createWorker, defineTool, Team } from '../../src';
import { exportAudit, verifyAuditExport } from '../../src/audit';
import { ActivityType } from '../../src/common/messages';
import { scriptedAgent as agent } from '../helpers/agents';
import { taskQueue, useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const server = useTemporalServer();

const refunds: string[] = [];

/** The desk in two versions: v2's refund takes other parameters, so a v2 worker refuses v1's refund step. */
function deskTeam(v: 'v1' | 'v2'): Team {
  const refund = defineTool({
    name: 'refund',
    description: 'Refund an order',
    parameters: v === 'v1' ? z.object({ order: z.string() }) : z.object({ order: z.string(), reason: z.string() }),
    needsApproval: true,
    execute: ({ order }) => {
      refunds.push(`${order} on ${v}`);
      return `refunded ${order}`;
    },
  });
  return new Team(
    [
      agent('desk', [{ toolCalls: [{ name: 'refund', arguments: { order: 'A1' } }] }, { text: `A1 refunded (${v})` }], {
        tools: [refund],
      }),
    ],
    { name: 'desk', version: v },
  );
}

async function deskWorker(v: 'v1' | 'v2', queue: string) {
  const worker = await createWorker({ team: deskTeam(v), connection: server.env.nativeConnection, taskQueue: queue });
  const done = worker.run();
  return {
    async stop() {
      worker.shutdown();
      await done;
    },
  };
}

describe('an approved tool call refused for its team, then run', () => {
  it('is one call in the audit, and the export verifies', { timeout: 120_000 }, async () => {
    const queue = taskQueue();
    const baton = new Baton({ client: server.env.client, taskQueue: queue });
    const v1 = await deskWorker('v1', queue);
    const run = await baton.start('desk', 'refund order A1', { teamMismatchTimeout: '2 minutes' });
    const [waiting] = await waitFor(
      () => run.pendingApprovals(),
      (p) => p.length === 1,
    );
    await v1.stop();
    const v2 = await deskWorker('v2', queue);
    await baton.approve(run.workflowId, waiting!.handoffId, { approver: 'alice' });
    // v2's worker refuses the refund's step, again and again.
    const refusals = async () => {
      const events = (await run.handle.fetchHistory()).events ?? [];
      return events.filter(
        (e) => e.activityTaskFailedEventAttributes?.failure?.applicationFailureInfo?.type === 'TeamMismatchError',
      ).length;
    };
    await waitFor(refusals, (n) => n >= 2, 60_000);
    await v2.stop();
    const back = await deskWorker('v1', queue);
    try {
      expect((await run.result()).output).toBe('A1 refunded (v1)');
      expect(refunds).toEqual(['A1 on v1']);
      const audit = await baton.audit(run.workflowId);
      const calls = audit.events.filter((e) => e.kind === 'tool_call');
      expect(calls).toHaveLength(1);
      expect(calls[0]).toMatchObject({
        tool: 'refund',
        approval: waiting!.handoffId,
        execution: { status: 'completed' },
      });
      expect((calls[0] as { execution: { lostWorkers?: number } }).execution.lostWorkers).toBeUndefined();
      // The refused schedulings are in history; the audit counts the call once.
      const scheduled = ((await run.handle.fetchHistory()).events ?? []).filter(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === ActivityType.RUN_TOOL,
      );
      expect(scheduled.length).toBeGreaterThan(2);
      expect(verifyAuditExport(exportAudit(audit), { acceptUntrustedHead: true })).toMatchObject({
        ok: true,
        approvedCalls: 1,
      });
    } finally {
      await back.stop();
    }
  });
});
