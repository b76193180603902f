/**
 * Experiments on the real server: chains split between two team versions (two task queues, one
 * with run options of its own), per-variant outcomes that match the chains' histories, a stop that
 * sends every new chain to the winner; and success per agent and edge matching a count from history.
 */
import { describe, expect, it } from 'vitest';
import { defineAgent, scripted, Team } from '../../src';
import { BatonVariant, VARIANT_MEMO } from '../../src/common/messages';
import type { VariantAssignment } from '../../src/common/experiment';
import { agentEdgeStats } from '../../src/eval/stats/agents';
import { recordedHandoff, recordedApprovalEvent } from '../../src/audit/history';
import { cli } from '../helpers/cli';
import { billingTeam, runExperimentScenario } from '../helpers/experimentScenario';
import { taskQueue, useTemporalServer } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { createWorker } from '../../src/worker';
import { Baton as BatonClient } from '../../src/client/baton';

const server = useTemporalServer();
/**
 * Chains split by the experiment: 40 here, to keep the test quick on a busy machine;
 * `npm run drill -- experiment` runs the same scenario with 200 (`--experiment-chains N`).
 */
const CHAINS = Number(process.env.BATON_EXPERIMENT_CHAINS ?? 40);

describe('experiments', () => {
  it(`splits ${CHAINS} chains between two team versions, reports per-variant outcomes that match their histories, and a stop sends all new chains to the winner`, async () => {
    const queues = { a: taskQueue(), b: taskQueue() };
    const run = await runExperimentScenario(server.env, CHAINS, queues);
    const { experiment: id, truth, stats } = run;
    // The figures agree with the count made from each chain's history.
    expect(run.problems).toEqual([]);
    const inB = run.chains.filter((c) => c.assignment.variant === 'b').length;
    // The split is by a hash of the chain's id: about half each, and the same id always the same variant.
    expect(inB).toBeGreaterThan(CHAINS * 0.25);
    expect(inB).toBeLessThan(CHAINS * 0.75);
    const baton = new BatonClient({ client: server.env.client, taskQueue: queues.a });
    const again = await baton.experiments.variantStart(id, run.chains[0]!.workflowId, undefined, {}, queues.a);
    expect(again.assignment.variant).toBe(run.chains[0]!.assignment.variant);
    expect(truth.b.failed).toBeGreaterThan(0);
    const [a, b] = stats.variants;
    expect(b!.failures).toEqual({ GuardrailTrippedError: truth.b.failed });
    expect(a!.successRate).toBe(1);
    expect(a!.latencyMs.p50).toBeGreaterThan(0);
    // Every urgent request in b fails, none in a: a difference beyond chance.
    expect(stats.comparisons[0]).toMatchObject({
      variant: 'b',
      against: 'a',
      successRate: { test: "Fisher's exact", exact: true, significant: true },
    });
    expect(stats.comparisons[0]!.latency?.test).toBe('Mann-Whitney U');

    const printed = await cli(['stats', '--experiment', id], { TEMPORAL_ADDRESS: server.env.address });
    expect(printed.code).toBe(0);
    expect(printed.stdout).toMatch(
      new RegExp(
        `b\\s+${b!.chains}\\s+${(b!.successRate! * 100).toFixed(1)}% \\(${b!.completed}/${b!.chains}\\)\\s+GuardrailTrippedError ${b!.failed}`,
      ),
    );
    expect(printed.stdout).toMatch(/success rate: Fisher's exact difference -[\d.]+ points, p=[\d.]+ — significant/);

    // Without a worker where an experiment's workflow runs, a stop says so instead of waiting.
    const nowhere = new BatonClient({ client: server.env.client, taskQueue: taskQueue() });
    await nowhere.experiments.start({ id: `${id}-idle`, variants: [{ name: 'a' }, { name: 'b' }] });
    await expect(nowhere.experiments.stop(`${id}-idle`, { winner: 'a' })).rejects.toThrow(
      `no worker polls task queue "${nowhere.taskQueue}"`,
    );
    // Stopped with a winner, every new chain goes there.
    const worker = await createWorker({
      team: billingTeam('v1'),
      connection: server.env.nativeConnection,
      taskQueue: queues.a,
    });
    await worker.runUntil(async () => {
      await baton.experiments.stop(id, { winner: 'a', by: 'alice', reason: 'b trips on urgent requests' });
      const after = await Promise.all(
        Array.from({ length: 10 }, () => baton.start('triage', 'request', { experiment: id })),
      );
      await Promise.all(after.map((r) => r.result()));
      const variants = await Promise.all(
        after.map(async (r) => (await r.handle.describe()).memo?.[VARIANT_MEMO] as VariantAssignment),
      );
      expect(variants.map((v) => [v.variant, v.stopped])).toEqual(after.map(() => ['a', true]));
    });
    await expect(baton.experiments.stop(id, { winner: 'b' })).rejects.toThrow('stopped already');
  }, 240_000);
});

describe('experiments across continue-as-new and conversations', () => {
  it('keeps the variant on every run of a chain that continues as new, and holds a conversation in its variant', async () => {
    const queue = taskQueue();
    const step = { toolCalls: [{ name: 'readState', arguments: {} }] };
    const busy = defineAgent({
      id: 'busy',
      instructions: 'Work.',
      model: scripted({
        steps: [step, step, step, step, step, step, { text: 'done' }],
        rules: [{ whenIncludes: '', reply: { text: 'hello' } }],
        requireAllSteps: false,
      }),
    });
    const worker = await createWorker({
      team: new Team([busy], { sharedState: true }),
      connection: server.env.nativeConnection,
      taskQueue: queue,
    });
    const baton = new BatonClient({ client: server.env.client, taskQueue: queue });
    await worker.runUntil(async () => {
      const id = `can-${Date.now()}`;
      await baton.experiments.start({
        id,
        variants: [
          { name: 'a', options: { continueAsNewAfterEvents: 20 } },
          { name: 'b', options: { continueAsNewAfterEvents: 20 } },
        ],
      });
      const run = await baton.start('busy', 'work', { experiment: id });
      expect((await run.result()).output).toBe('done');
      const variant = ((await run.handle.describe()).memo?.[VARIANT_MEMO] as VariantAssignment).variant;
      const runs: (string | undefined)[] = [];
      for await (const wf of server.env.client.workflow.list({ query: `WorkflowId = "${run.workflowId}"` }))
        runs.push(wf.typedSearchAttributes.get(BatonVariant));
      expect(runs.length).toBeGreaterThan(1);
      expect(runs).toEqual(runs.map(() => `${id}:${variant}`));

      const chat = baton.conversation('busy', { experiment: id });
      await chat.send('hi');
      const described = await chat.handle.describe();
      const assignment = described.memo?.[VARIANT_MEMO] as VariantAssignment;
      expect(assignment).toMatchObject({ experiment: id, by: 'id' });
      expect(described.typedSearchAttributes.get(BatonVariant)).toBe(`${id}:${assignment.variant}`);
      await chat.end();
    });
  });
});

describe('success per agent and per edge', () => {
  it('counts turns, handoffs, approvals rejected and failures as the histories record them', async () => {
    const queue = taskQueue();
    const triage = defineAgent({
      id: 'triage',
      instructions: 'Route.',
      model: scripted({
        rules: [
          { whenIncludes: 'was rejected', reply: { text: 'sorry' } },
          { whenIncludes: 'refund', reply: { handoff: { to: 'refunds', message: 'refund' } } },
          { whenIncludes: '', reply: { handoff: { to: 'sales', message: 'sale' } } },
        ],
      }),
      handoffs: ['refunds', 'sales'],
    });
    const refunds = defineAgent({
      id: 'refunds',
      instructions: 'Refund.',
      model: scripted({ rules: [{ whenIncludes: '', reply: { text: 'refunded' } }] }),
      approval: { required: true },
    });
    const sales = defineAgent({
      id: 'sales',
      instructions: 'Sell.',
      model: scripted({ rules: [{ whenIncludes: '', reply: { handoff: { to: 'nobody', message: 'x' } } }] }),
    });
    const worker = await createWorker({
      team: new Team([triage, refunds, sales]),
      connection: server.env.nativeConnection,
      taskQueue: queue,
    });
    const baton = new BatonClient({ client: server.env.client, taskQueue: queue });
    await worker.runUntil(async () => {
      const runs = await Promise.all(
        ['refund 1', 'refund 2', 'refund 3', 'buy 1', 'buy 2'].map((input) => baton.start('triage', input)),
      );
      for (const [i, run] of runs.slice(0, 3).entries()) {
        const [waiting] = await waitFor(
          () => run.pendingApprovals(),
          (p) => p.length > 0,
        );
        if (i === 0)
          await baton.reject(run.workflowId, { approvalId: waiting!.handoffId, approver: 'alice', reason: 'no' });
        else await baton.approve(run.workflowId, { approvalId: waiting!.handoffId, approver: 'alice' });
      }
      await Promise.allSettled(runs.map((r) => r.result()));
      const query = `TaskQueue = "${queue}"`;
      await waitFor(
        () => baton.client.workflow.count(`${query} AND ExecutionStatus != "Running"`).then((c) => c.count),
        (n) => n === 5,
      );

      // The count from history: handoffs by edge (the batonHandoff memo), rejections, how chains ended.
      const edges: Record<string, number> = {};
      let rejected = 0;
      const ended = { completed: 0, failed: 0 };
      for (const r of runs) {
        const events = (await r.handle.fetchHistory()).events ?? [];
        for (const e of events) {
          const h = recordedHandoff(e);
          if (h) edges[`${h.handoff.from} → ${h.handoff.to}`] = (edges[`${h.handoff.from} → ${h.handoff.to}`] ?? 0) + 1;
          if (recordedApprovalEvent(e)?.outcome === 'rejected') rejected += 1;
        }
        if (events.some((e) => e.workflowExecutionCompletedEventAttributes)) ended.completed += 1;
        else ended.failed += 1;
      }
      expect(edges).toEqual({ 'triage → refunds': 2, 'triage → sales': 2 });

      const stats = await agentEdgeStats(server.env.client, { since: new Date(Date.now() - 600_000), query });
      expect(stats.chains).toBe(5);
      const edge = (from: string, to: string) => stats.edges.find((e) => e.from === from && e.to === to)!;
      expect(edge('triage', 'refunds')).toMatchObject({
        requested: 3,
        handoffs: edges['triage → refunds'],
        rejected,
        completed: 2,
        failed: 0,
        successRate: 1,
        approvals: { asked: 3, rejected: 1 },
      });
      expect(edge('triage', 'sales')).toMatchObject({
        requested: 2,
        handoffs: edges['triage → sales'],
        completed: 0,
        failed: 2,
        failures: { HandoffTargetNotFoundError: 2 },
        successRate: 0,
      });
      const agent = (id: string) => stats.agents.find((a) => a.agent === id)!;
      expect(agent('triage')).toMatchObject({ activations: 5, answered: 1, handedOff: 4, failed: 0, successRate: 1 });
      expect(agent('refunds')).toMatchObject({
        activations: 2,
        answered: 2,
        approvals: { asked: 3, rejected: 1, rejectionRate: 1 / 3 },
      });
      expect(agent('sales')).toMatchObject({
        activations: 2,
        failed: 2,
        failures: { HandoffTargetNotFoundError: 2 },
        successRate: 0,
      });
      expect(ended).toEqual({ completed: 3, failed: 2 });
    });
  }, 120_000);
});
