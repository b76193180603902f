/**
 * Success per agent and per handoff edge over a window, from visibility (the chains started in it)
 * and their histories: how each agent's turns at a chain ended (answered, handed on, failed by
 * error), the approvals about it that were rejected, how long its turns took; for each edge, the
 * handoffs asked for and how they ended, and how the chains that took it ended.
 */
import type { Client } from '@temporalio/client';
import { type ChainFacts, listChains, readFacts } from './chains';
import { quantile } from './significance';

/** One agent's figures. */
export interface AgentStats {
  agent: string;
  /** Its turns at chains: as the first agent, or handed to. */
  activations: number;
  answered: number;
  handedOff: number;
  /** Turns during which the chain failed (or was cancelled, terminated, timed out). */
  failed: number;
  failures: Record<string, number>;
  /** (answered + handed off) / turns that ended. */
  successRate?: number;
  /** Approvals of handoffs into it and of its tool calls. */
  approvals: { asked: number; rejected: number; rejectionRate?: number };
  latencyMs: { p50?: number; p95?: number };
}

/** One edge's figures (`from` → `to`). */
export interface EdgeStats {
  from: string;
  to: string;
  /** Handoffs the model asked for on it, and how they ended. */
  requested: number;
  handoffs: number;
  rejected: number;
  refused: number;
  /** Chains that took the edge, by how they ended. */
  completed: number;
  failed: number;
  failures: Record<string, number>;
  successRate?: number;
  approvals: { asked: number; rejected: number; rejectionRate?: number };
  /** How long the target's turns after the edge took. */
  latencyMs: { p50?: number; p95?: number };
}

/** What `baton stats --by agent|edge` reports. */
export interface AgentEdgeStats {
  /** The visibility query the chains came from. */
  query: string;
  chains: number;
  agents: AgentStats[];
  edges: EdgeStats[];
}

/** Options of {@link agentEdgeStats}. */
export interface AgentStatsOptions {
  /** Chains started since then. @default an hour ago */
  since?: Date;
  /** More of the visibility query, ANDed (e.g. `BatonTeam="support@v2"`). */
  query?: string;
  /** Chains read at most, newest first. @default 1000 */
  limit?: number;
  concurrency?: number;
}

/** Success per agent and per edge of the chains (specialists' included) started in the window. */
export async function agentEdgeStats(client: Client, options: AgentStatsOptions = {}): Promise<AgentEdgeStats> {
  const since = options.since ?? new Date(Date.now() - 3_600_000);
  const query = `StartTime > "${since.toISOString()}"${options.query?.trim() ? ` AND (${options.query})` : ''}`;
  const ids = await listChains(client, query, options.limit ?? 1000);
  const facts = await readFacts(client, ids, {
    children: false,
    ...(options.concurrency ? { concurrency: options.concurrency } : {}),
  });
  return { query, chains: facts.length, agents: agentsOf(facts), edges: edgesOf(facts) };
}

function rate(n: number, d: number): number | undefined {
  return d > 0 ? n / d : undefined;
}

function latency(values: number[]): { p50?: number; p95?: number } {
  const p50 = quantile(values, 0.5);
  const p95 = quantile(values, 0.95);
  return { ...(p50 !== undefined ? { p50 } : {}), ...(p95 !== undefined ? { p95 } : {}) };
}

function bump(r: Record<string, number>, key: string): void {
  r[key] = (r[key] ?? 0) + 1;
}

function agentsOf(facts: ChainFacts[]): AgentStats[] {
  const by = new Map<string, AgentStats & { durations: number[] }>();
  const row = (agent: string) => {
    let r = by.get(agent);
    if (!r)
      by.set(
        agent,
        (r = {
          agent,
          activations: 0,
          answered: 0,
          handedOff: 0,
          failed: 0,
          failures: {},
          approvals: { asked: 0, rejected: 0 },
          latencyMs: {},
          durations: [],
        }),
      );
    return r;
  };
  for (const f of facts) {
    for (const a of f.activations) {
      const r = row(a.agent);
      r.activations += 1;
      if (a.ended === 'running') continue;
      if (a.ended === 'answer') r.answered += 1;
      else if (a.ended === 'handoff') r.handedOff += 1;
      else {
        r.failed += 1;
        bump(r.failures, a.error ?? a.ended);
      }
      if (a.durationMs !== undefined) r.durations.push(a.durationMs);
    }
    for (const a of f.approvals) {
      const r = row(a.agent);
      r.approvals.asked += 1;
      if (a.rejected) r.approvals.rejected += 1;
    }
  }
  return [...by.values()]
    .map(({ durations, ...r }) => ({
      ...r,
      ...opt('successRate', rate(r.answered + r.handedOff, r.answered + r.handedOff + r.failed)),
      approvals: { ...r.approvals, ...opt('rejectionRate', rate(r.approvals.rejected, r.approvals.asked)) },
      latencyMs: latency(durations),
    }))
    .sort((a, b) => a.agent.localeCompare(b.agent));
}

function edgesOf(facts: ChainFacts[]): EdgeStats[] {
  const by = new Map<string, EdgeStats & { durations: number[] }>();
  const row = (from: string, to: string) => {
    const key = `${from} → ${to}`;
    let r = by.get(key);
    if (!r)
      by.set(
        key,
        (r = {
          from,
          to,
          requested: 0,
          handoffs: 0,
          rejected: 0,
          refused: 0,
          completed: 0,
          failed: 0,
          failures: {},
          approvals: { asked: 0, rejected: 0 },
          latencyMs: {},
          durations: [],
        }),
      );
    return r;
  };
  for (const f of facts) {
    for (const q of f.requests) {
      const r = row(q.from, q.to);
      r.requested += 1;
      if (q.outcome === 'executed') continue;
      if (q.outcome === 'rejected' || q.outcome === 'timed_out') r.rejected += 1;
      else r.refused += 1;
    }
    const taken = new Set<string>();
    for (const a of f.activations) {
      if (!a.from) continue;
      const r = row(a.from, a.agent);
      r.handoffs += 1;
      if (a.durationMs !== undefined && a.ended !== 'running') r.durations.push(a.durationMs);
      taken.add(`${a.from} → ${a.agent}`);
    }
    for (const key of taken) {
      const r = by.get(key)!;
      if (f.status === 'completed') r.completed += 1;
      else if (f.status !== 'running') {
        r.failed += 1;
        bump(r.failures, f.error ?? f.status);
      }
    }
    for (const a of f.approvals) {
      if (!a.edge) continue;
      const [from, to] = a.edge.split(' → ') as [string, string];
      const r = row(from, to);
      r.approvals.asked += 1;
      if (a.rejected) r.approvals.rejected += 1;
    }
  }
  return [...by.values()]
    .map(({ durations, ...r }) => ({
      ...r,
      ...opt('successRate', rate(r.completed, r.completed + r.failed)),
      approvals: { ...r.approvals, ...opt('rejectionRate', rate(r.approvals.rejected, r.approvals.asked)) },
      latencyMs: latency(durations),
    }))
    .sort((a, b) => `${a.from} ${a.to}`.localeCompare(`${b.from} ${b.to}`));
}

function opt<K extends string>(key: K, value: number | undefined): { [P in K]?: number } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: number };
}
