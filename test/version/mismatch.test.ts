import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { msToTs } from '@temporalio/common/lib/time';
import { describe, expect, it } from 'vitest';
import { type Worker } from '@temporalio/worker';
import { Registry } from 'prom-client';
import { effects, redeployTeam, type TeamVersionName } from '../../drill/redeploy/team';
import { Baton } from '../../src';
import { BatonTeam, TEAM_MEMO, TeamMismatchError } from '../../src/workflow';
import { diffTeams } from '../../src/agents';
import { teamSnapshot } from '../../src/client/sensitive';
import { createWorker } from '../../src/worker';
import { fromPayloads } from '../../src/payloads/read';
import { taskQueue, useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

describe('a worker never answers for a team it does not have', () => {
  const server = useTemporalServer();

  async function start(
    v: TeamVersionName,
    queue: string,
    registry?: Registry,
  ): Promise<{ worker: Worker; running: Promise<void> }> {
    const worker = await createWorker({
      team: redeployTeam(v),
      connection: server.env.nativeConnection,
      taskQueue: queue,
      worker: {
        workerDeploymentOptions: { useWorkerVersioning: false, version: { deploymentName: 'support', buildId: v } },
      },
      ...(registry ? { metrics: { registry } } : {}),
    });
    return { worker, running: worker.run() };
  }

  async function refusals(baton: Baton, workflowId: string): Promise<ApplicationFailure[]> {
    const history = await baton.client.workflow.getHandle(workflowId).fetchHistory();
    return (history.events ?? []).flatMap((e) => {
      const f = e.activityTaskFailedEventAttributes?.failure;
      const info = f?.cause?.applicationFailureInfo ?? f?.applicationFailureInfo;
      return info?.type === TeamMismatchError.name
        ? [
            ApplicationFailure.create({
              type: info.type,
              message: f?.message ?? '',
              details: [fromPayloads(info.details)],
            }),
          ]
        : [];
    });
  }

  it('a step its team lacks is refused, never answered to the model, and runs once on a worker that has it, without asking again', async () => {
    const queue = taskQueue();
    const baton = new Baton({ client: server.env.client, taskQueue: queue });
    let v1 = await start('v1', queue);
    const run = await baton.start('refunds', 'Refund order A1 for 250', {
      teamMismatchTimeout: '1 minute',
      breakerThreshold: 1,
    });
    const [waiting] = await waitFor(
      async () => (await run.pendingApprovals()).filter((p) => p.tool),
      (w) => w.length === 1,
    );
    v1.worker.shutdown();
    await v1.running;
    const registry = new Registry();
    const v2 = await start('v2', queue, registry);
    try {
      await baton.approve(run.workflowId, waiting!.handoffId, { approver: 'alice' });
      // Only v2 polls: its refusal is on the record; then v1 takes v2's place, and the step's next try.
      const refused = await waitFor(
        () => refusals(baton, run.workflowId),
        (r) => r.length > 0,
      );
      expect(refused[0]!.message).toContain('tool "issueRefund" of agent "refunds"');
      expect(refused[0]!.message).toContain('support@v2');
      v2.worker.shutdown();
      await v2.running;
      v1 = await start('v1', queue);
      const result = await run.result();
      expect(result.output).toBe('Refunded 250 on A1 (refunds v1)');
      expect(result.controls?.breaker_opened ?? 0).toBe(0);
      const ran = [...effects.values()].filter(
        (e) => e.tool === 'issueRefund' && (e.args as { orderId: string }).orderId === 'A1',
      );
      expect(ran.map((e) => e.worker)).toContain('v1');
      const audit = await baton.audit(run.workflowId);
      expect(JSON.stringify(audit.events)).not.toContain('unknown tool');
      expect(audit.events.filter((e) => e.kind === 'approval_requested')).toHaveLength(1);
      expect(audit.events.find((e) => e.kind === 'team_snapshot')).toMatchObject({ team: 'support@v1' });
      const described = await run.handle.describe();
      expect(described.typedSearchAttributes.get(BatonTeam)).toBe('support@v1');
      expect(described.memo?.[TEAM_MEMO]).toMatchObject({ id: 'support@v1' });
      // The refusals are counted for the team that lacked the step, and the worker says which team it serves.
      const metrics = await registry.getMetricsAsJSON();
      const counted = metrics.find((m) => m.name === 'baton_team_mismatches_total')!.values as {
        labels: Record<string, string>;
        value: number;
      }[];
      expect(counted.find((c) => c.labels.step === 'runTool')).toMatchObject({
        labels: { team: 'support@v1', worker_team: 'support@v2' },
      });
      expect(metrics.find((m) => m.name === 'baton_team_info')!.values).toEqual([
        expect.objectContaining({ labels: expect.objectContaining({ team: 'support@v2' }), value: 1 }),
      ]);
      // What changed between the chain's team and the worker's, read from the chain's history.
      const recorded = await teamSnapshot(baton.client, run.workflowId, described.runId);
      expect(diffTeams(recorded!, redeployTeam('v2').spec()).changes.map((c) => c.kind)).toEqual(
        expect.arrayContaining(['agent_removed', 'tool_renamed', 'tool_schema_changed']),
      );
    } finally {
      for (const w of [v1, v2]) if (w.worker.getState() === 'RUNNING') w.worker.shutdown();
      await Promise.all([v1.running, v2.running]);
    }
  });

  it('on a namespace without the BatonTeam search attribute, chains run as before, their team on the memo', async () => {
    const namespace = `no-team-${randomUUID().slice(0, 8)}`;
    const { workflowService, operatorService } = server.env.connection;
    await workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
    // BatonAgent, BatonStatus (Keyword) and BatonHandoffs (Int): what baton needs; no BatonTeam.
    await waitFor(
      () =>
        operatorService
          .addSearchAttributes({ namespace, searchAttributes: { BatonAgent: 2, BatonStatus: 2, BatonHandoffs: 3 } })
          .then(
            () => true,
            () => false,
          ),
      (ok) => ok,
      30_000,
    );
    const queue = taskQueue();
    const worker = await createWorker({
      team: redeployTeam('v2'),
      connection: server.env.nativeConnection,
      namespace,
      taskQueue: queue,
    });
    const baton = new Baton({ client: new Client({ connection: server.env.connection, namespace }), taskQueue: queue });
    await worker.runUntil(async () => {
      const run = await baton.start('triage', 'quote please');
      expect((await run.result()).output).toBe('Quote: 3 seats for 90 (triage v2)');
      const described = await run.handle.describe();
      expect(described.typedSearchAttributes.get(BatonTeam)).toBeUndefined();
      expect(described.memo?.[TEAM_MEMO]).toMatchObject({ id: 'support@v2' });
    });
  });
});
