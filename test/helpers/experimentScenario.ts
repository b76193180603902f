/**
 * An experiment end to end, for its test (a few dozen chains) and its drill (200 and more): two
 * versions of a team on two task queues, chains split between them, each chain's outcome counted
 * from its history, and `experimentStats` checked against that count.
 */
import type { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import { defineAgent, guardrails, scripted, Team } from '../../src';
import { recordedApprovalEvent } from '../../src/audit/history';
import { Baton } from '../../src/client/baton';
import type { VariantAssignment } from '../../src/common/experiment';
import { BatonVariant, VARIANT_MEMO } from '../../src/common/messages';
import { experimentStats, type ExperimentStats } from '../../src/eval/stats/experiment';
import { fromPayloads } from '../../src/payloads/read';
import { createWorker } from '../../src/worker';

/** A team version: triage hands every request to billing, who answers; in v2 billing refuses urgent ones. */
export function billingTeam(label: 'v1' | 'v2'): Team {
  const rules = [
    { whenIncludes: 'urgent', reply: { handoff: { to: 'billing', message: 'urgent billing question' } } },
    { whenIncludes: '', reply: { handoff: { to: 'billing', message: 'billing question' } } },
  ];
  const triage = defineAgent({
    id: 'triage',
    instructions: 'Route.',
    model: scripted({ rules }),
    handoffs: ['billing'],
  });
  const billing = defineAgent({
    id: 'billing',
    instructions: 'Answer billing questions.',
    model: scripted({ rules: [{ whenIncludes: '', reply: { text: 'paid' } }] }),
    ...(label === 'v2'
      ? { guardrails: { input: [guardrails.pattern(/urgent/i, { message: 'urgent requests go to a person' })] } }
      : {}),
  });
  return new Team([triage, billing], { name: 'billing', version: label });
}

/** What a chain's history says: its outcome, guardrail trips and tokens. */
export interface Truth {
  completed: number;
  failed: number;
  trips: number;
  tokens: number;
}

/** What the scenario found. */
export interface ExperimentScenario {
  experiment: string;
  chains: { workflowId: string; assignment: VariantAssignment }[];
  /** Counted from each chain's history, by variant. */
  truth: Record<'a' | 'b', Truth>;
  stats: ExperimentStats;
  /** Where the figures and the count disagree (empty when they agree). */
  problems: string[];
  /** How long the chains took, from the first start to the last answer, and reading the figures. */
  chainsMs: number;
  statsMs: number;
}

/** Run `count` chains in a new experiment between v1 (queue `a`) and v2 (queue `b`), then read and check its figures. */
export async function runExperimentScenario(
  env: { client: Client; nativeConnection: NativeConnection },
  count: number,
  queues: { a: string; b: string },
  experimentId = 'split',
): Promise<ExperimentScenario> {
  const w1 = await createWorker({ team: billingTeam('v1'), connection: env.nativeConnection, taskQueue: queues.a });
  const w2 = await createWorker({ team: billingTeam('v2'), connection: env.nativeConnection, taskQueue: queues.b });
  const baton = new Baton({ client: env.client, taskQueue: queues.a });
  // Fixed ids split the same way every time (each run has a server of its own).
  const experiment = experimentId;
  const work = async (): Promise<ExperimentScenario> => {
    await baton.experiments.start({
      id: experiment,
      variants: [
        { name: 'a', taskQueue: queues.a },
        { name: 'b', taskQueue: queues.b, options: { maxHandoffs: 3 } },
      ],
    });
    const started = Date.now();
    const runs = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        baton.start('triage', i % 4 === 0 ? `urgent request ${i}` : `request ${i}`, {
          experiment,
          workflowId: `${experiment}-chain-${i}`,
        }),
      ),
    );
    await Promise.allSettled(runs.map((r) => r.result()));
    const chainsMs = Date.now() - started;
    const chains = await Promise.all(
      runs.map(async (r) => ({
        workflowId: r.workflowId,
        assignment: (await r.handle.describe()).memo?.[VARIANT_MEMO] as VariantAssignment,
      })),
    );
    const truth = {
      a: { completed: 0, failed: 0, trips: 0, tokens: 0 },
      b: { completed: 0, failed: 0, trips: 0, tokens: 0 },
    };
    for (const { workflowId, assignment } of chains) {
      const events = (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
      const t = truth[assignment.variant as 'a' | 'b'];
      if (events.some((e) => e.workflowExecutionCompletedEventAttributes)) t.completed += 1;
      if (events.some((e) => e.workflowExecutionFailedEventAttributes)) t.failed += 1;
      t.trips += events.filter((e) => recordedApprovalEvent(e)?.control === 'guardrail_tripped').length;
      for (const e of events) {
        const usage = fromPayloads<{ usage?: { inputTokens: number; outputTokens: number } }>(
          e.activityTaskCompletedEventAttributes?.result,
        )?.usage;
        if (usage) t.tokens += usage.inputTokens + usage.outputTokens;
      }
    }
    // Visibility catches up with the closed chains before they are listed.
    const closed = `${BatonVariant.name} IN ("${experiment}:a", "${experiment}:b") AND ExecutionStatus != "Running"`;
    for (
      let deadline = Date.now() + 60_000;
      (await env.client.workflow.count(closed)).count < count && Date.now() < deadline;
    )
      await new Promise((r) => setTimeout(r, 200));
    const before = Date.now();
    const stats = await experimentStats(env.client, baton.experiments, experiment);
    const statsMs = Date.now() - before;
    const problems: string[] = [];
    stats.variants.forEach((v, i) => {
      const t = truth[i === 0 ? 'a' : 'b'];
      const expected = {
        chains: t.completed + t.failed,
        completed: t.completed,
        failed: t.failed,
        guardrailTrips: t.trips,
        tokens: t.tokens,
      };
      const got = {
        chains: v.chains,
        completed: v.completed,
        failed: v.failed,
        guardrailTrips: v.guardrailTrips.total,
        tokens: v.tokens.total,
      };
      for (const k of Object.keys(expected) as (keyof typeof expected)[])
        if (expected[k] !== got[k]) problems.push(`variant ${v.variant}: ${k} ${got[k]}, history says ${expected[k]}`);
    });
    return { experiment, chains, truth, stats, problems, chainsMs, statsMs };
  };
  return w1.runUntil(() => w2.runUntil(work));
}
