/**
 * An experiment's outcomes per variant, from visibility (its chains by `BatonVariant`) and their
 * histories: success rate, failures by error, handoffs, approval rejections, guardrail trips,
 * tokens, cost when the models' usage carries it, latency p50/p95; and each variant beside the
 * first (the control), with the tests that say whether a difference is more than chance.
 */
import type { Client } from '@temporalio/client';
import type { Experiments } from '../../client/experiments';
import type { ExperimentState } from '../../common/experiment';
import { variantAttributeValue } from '../../common/experiment';
import { BatonVariant } from '../../common/messages';
import { type ChainFacts, listChains, readFacts } from './chains';
import { mannWhitneyU } from './rankTest';
import { fisherExact, quantile, type TestResult } from './significance';

/** One variant's figures. Rates count ended chains; running ones are only counted. */
export interface VariantStats {
  variant: string;
  chains: number;
  running: number;
  completed: number;
  failed: number;
  /** Chains that ended otherwise than completed, by error type (or how they ended). */
  failures: Record<string, number>;
  successRate?: number;
  handoffs: { total: number; mean?: number };
  approvals: { asked: number; rejected: number; rejectionRate?: number };
  guardrailTrips: { total: number; chains: number };
  tokens: { total: number; mean?: number };
  /** Total cost, when every model call's usage carried one. */
  cost?: number;
  latencyMs: { p50?: number; p95?: number };
}

/** A variant beside the control: each figure's test. */
export interface Comparison {
  variant: string;
  against: string;
  successRate?: TestResult;
  approvalRejections?: TestResult;
  guardrailTrips?: TestResult;
  latency?: TestResult;
  tokens?: TestResult;
  handoffs?: TestResult;
}

/** What `baton stats --experiment` reports. */
export interface ExperimentStats {
  experiment: ExperimentState;
  variants: VariantStats[];
  comparisons: Comparison[];
}

/** The figures of experiment `id`, from at most `limit` chains a variant. */
export async function experimentStats(
  client: Client,
  experiments: Experiments,
  id: string,
  options: { limit?: number; concurrency?: number } = {},
): Promise<ExperimentStats> {
  const state = await experiments.get(id);
  const facts = await Promise.all(
    state.definition.variants.map(async (v) => {
      const ids = await listChains(
        client,
        `${BatonVariant.name} = "${variantAttributeValue(id, v.name)}"`,
        options.limit ?? 1000,
      );
      return readFacts(client, ids, {
        children: true,
        ...(options.concurrency ? { concurrency: options.concurrency } : {}),
      });
    }),
  );
  const variants = state.definition.variants.map((v, i) => variantStats(v.name, facts[i]!));
  const control = facts[0]!.filter(ended);
  const comparisons = state.definition.variants
    .slice(1)
    .map((v, i) => compare(v.name, state.definition.variants[0]!.name, facts[i + 1]!.filter(ended), control));
  return { experiment: state, variants, comparisons };
}

const ended = (f: ChainFacts) => f.status !== 'running';

function variantStats(name: string, all: ChainFacts[]): VariantStats {
  const done = all.filter(ended);
  const completed = done.filter((f) => f.status === 'completed').length;
  const failures: Record<string, number> = {};
  for (const f of done)
    if (f.status !== 'completed') failures[f.error ?? f.status] = (failures[f.error ?? f.status] ?? 0) + 1;
  const sum = (pick: (f: ChainFacts) => number) => done.reduce((s, f) => s + pick(f), 0);
  const asked = sum((f) => f.approvalsAsked);
  const rejected = sum((f) => f.approvalsRejected);
  const latencies = done.flatMap((f) => (f.latencyMs !== undefined ? [f.latencyMs] : []));
  const costs = done.map((f) => f.cost);
  const mean = (total: number) => (done.length > 0 ? total / done.length : undefined);
  return {
    variant: name,
    chains: all.length,
    running: all.length - done.length,
    completed,
    failed: done.length - completed,
    failures,
    ...(done.length > 0 ? { successRate: completed / done.length } : {}),
    handoffs: { total: sum((f) => f.handoffs), ...opt('mean', mean(sum((f) => f.handoffs))) },
    approvals: { asked, rejected, ...opt('rejectionRate', asked > 0 ? rejected / asked : undefined) },
    guardrailTrips: { total: sum((f) => f.guardrailTrips), chains: done.filter((f) => f.guardrailTrips > 0).length },
    tokens: { total: sum((f) => f.tokens), ...opt('mean', mean(sum((f) => f.tokens))) },
    ...(done.length > 0 && costs.every((c) => c !== undefined) ? { cost: costs.reduce((a, b) => a! + b!, 0) } : {}),
    latencyMs: { ...opt('p50', quantile(latencies, 0.5)), ...opt('p95', quantile(latencies, 0.95)) },
  };
}

function compare(variant: string, against: string, b: ChainFacts[], a: ChainFacts[]): Comparison {
  const count = (xs: ChainFacts[], pick: (f: ChainFacts) => boolean) => xs.filter(pick).length;
  const sum = (xs: ChainFacts[], pick: (f: ChainFacts) => number) => xs.reduce((s, f) => s + pick(f), 0);
  const tests: Omit<Comparison, 'variant' | 'against'> = {
    successRate: fisherExact(
      count(b, (f) => f.status === 'completed'),
      b.length,
      count(a, (f) => f.status === 'completed'),
      a.length,
    ),
    approvalRejections: fisherExact(
      sum(b, (f) => f.approvalsRejected),
      sum(b, (f) => f.approvalsAsked),
      sum(a, (f) => f.approvalsRejected),
      sum(a, (f) => f.approvalsAsked),
    ),
    guardrailTrips: fisherExact(
      count(b, (f) => f.guardrailTrips > 0),
      b.length,
      count(a, (f) => f.guardrailTrips > 0),
      a.length,
    ),
    latency: mannWhitneyU(
      b.flatMap((f) => (f.latencyMs !== undefined ? [f.latencyMs] : [])),
      a.flatMap((f) => (f.latencyMs !== undefined ? [f.latencyMs] : [])),
    ),
    tokens: mannWhitneyU(
      b.map((f) => f.tokens),
      a.map((f) => f.tokens),
    ),
    handoffs: mannWhitneyU(
      b.map((f) => f.handoffs),
      a.map((f) => f.handoffs),
    ),
  };
  return { variant, against, ...Object.fromEntries(Object.entries(tests).filter(([, t]) => t !== undefined)) };
}

function opt<K extends string>(key: K, value: number | undefined): { [P in K]?: number } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: number };
}
