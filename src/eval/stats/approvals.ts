/**
 * Approver workload over a window, from visibility (the chains started in it) and their histories:
 * time to decision (p50/p95) by team, approver and tool; SLA breaches (an approval that timed out,
 * or was decided past its deadline); escalations and reminders on the record; and, from the inbox,
 * what waits now by age.
 */
import type { Client } from '@temporalio/client';
import type { AuditChain } from '../../audit/types';
import { listInbox } from '../../client/inbox';
import { TeamSnapshots } from '../../client/sensitive';
import { chainFromServer } from '../chainRecord';
import { listChains } from './chains';
import { quantile } from './significance';

/** Time to decision of one group (a team, an approver or a tool). */
export interface DecisionTimes {
  key: string;
  decided: number;
  p50Ms?: number;
  p95Ms?: number;
}

/** What `baton stats --approvals` reports. */
export interface ApprovalStats {
  query: string;
  chains: number;
  asked: number;
  decided: number;
  timedOut: number;
  /** Timed out, or decided after its deadline. */
  slaBreaches: number;
  /** Approval events on the record whose type names an escalation or a reminder (`approval_escalated`, `approval_reminded`, …). */
  escalations: number;
  reminders: number;
  byTeam: DecisionTimes[];
  byApprover: DecisionTimes[];
  byTool: DecisionTimes[];
  /** What waits now, across chains, by how long it has waited. */
  pendingByAge: Record<AgeBucket, number>;
  overdue: number;
}

/** The age buckets of what waits. */
export const AGE_BUCKETS = ['under 5m', '5m-1h', '1h-1d', 'over 1d'] as const;
export type AgeBucket = (typeof AGE_BUCKETS)[number];

/** The bucket of an approval that has waited `ms`. */
export function ageBucket(ms: number): AgeBucket {
  return ms < 300_000 ? 'under 5m' : ms < 3_600_000 ? '5m-1h' : ms < 86_400_000 ? '1h-1d' : 'over 1d';
}

/** One decided approval, as the figures count it. */
interface Decided {
  team: string;
  approver?: string;
  tool: string;
  ms: number;
  outcome: string;
  late: boolean;
}

/** The decided approvals, escalations and reminders of one chain's audit. */
export function approvalsOf(audit: Pick<AuditChain, 'events' | 'team'>): {
  asked: number;
  decided: Decided[];
  escalations: number;
  reminders: number;
} {
  const team = audit.team?.version?.id ?? 'unversioned';
  const asked = new Map<string, { expiresAt?: string; tool?: string }>();
  const decided: Decided[] = [];
  let escalations = 0;
  let reminders = 0;
  for (const e of audit.events as unknown as Record<string, unknown>[]) {
    const kind = String(e.kind);
    if (kind === 'approval_requested')
      asked.set(String(e.handoffId), {
        ...(typeof e.expiresAt === 'string' ? { expiresAt: e.expiresAt } : {}),
        ...(isTool(e.tool) ? { tool: e.tool.name } : {}),
      });
    else if (kind === 'approval_decided') {
      const request = asked.get(String(e.handoffId));
      const ms = Date.parse(String(e.decidedAt)) - Date.parse(String(e.requestedAt));
      const late =
        e.outcome === 'timed_out' || (request?.expiresAt !== undefined && String(e.decidedAt) > request.expiresAt);
      decided.push({
        team,
        ...(typeof e.approver === 'string' ? { approver: e.approver } : {}),
        tool: typeof e.tool === 'string' ? e.tool : (request?.tool ?? 'handoff'),
        ms,
        outcome: String(e.outcome),
        late,
      });
    } else if (/escalat/.test(kind)) escalations++;
    else if (/remind/.test(kind)) reminders++;
  }
  return { asked: asked.size, decided, escalations, reminders };
}

/** The approval figures of the chains started since `since` (and matching `query`), at most `limit`. */
export async function approvalStats(
  client: Client,
  options: { since?: Date; query?: string; limit?: number } = {},
): Promise<ApprovalStats> {
  const since = options.since ?? new Date(Date.now() - 3_600_000);
  const query = `StartTime >= "${since.toISOString()}"${options.query ? ` AND (${options.query})` : ''}`;
  const ids = await listChains(client, query, options.limit ?? 1000);
  const all: Decided[] = [];
  let [asked, escalations, reminders] = [0, 0, 0];
  let next = 0;
  const lane = async () => {
    while (next < ids.length) {
      const { audit } = await chainFromServer(client, ids[next++]!, { children: false });
      const found = approvalsOf(audit);
      all.push(...found.decided);
      asked += found.asked;
      escalations += found.escalations;
      reminders += found.reminders;
    }
  };
  await Promise.all(Array.from({ length: Math.min(16, ids.length) }, lane));
  const pendingByAge = Object.fromEntries(AGE_BUCKETS.map((b) => [b, 0])) as Record<AgeBucket, number>;
  let overdue = 0;
  let pageToken: string | undefined;
  const teams = new TeamSnapshots(client);
  do {
    const page = await listInbox(client, () => teams, { limit: 500, ...(pageToken ? { pageToken } : {}) });
    for (const a of page.approvals) {
      pendingByAge[ageBucket(a.ageMs)]++;
      if (a.overdue) overdue++;
    }
    pageToken = page.nextPageToken;
  } while (pageToken);
  return {
    query,
    chains: ids.length,
    asked,
    decided: all.filter((d) => d.outcome !== 'timed_out').length,
    timedOut: all.filter((d) => d.outcome === 'timed_out').length,
    slaBreaches: all.filter((d) => d.late).length,
    escalations,
    reminders,
    byTeam: timesBy(all, (d) => d.team),
    byApprover: timesBy(
      all.filter((d) => d.approver),
      (d) => d.approver!,
    ),
    byTool: timesBy(all, (d) => d.tool),
    pendingByAge,
    overdue,
  };
}

/** Lines for a terminal. */
export function formatApprovalStats(s: ApprovalStats): string[] {
  const times = (title: string, rows: DecisionTimes[]) => [
    title,
    ...rows.map(
      (r) => `  ${r.key.padEnd(28)} ${String(r.decided).padStart(5)} decided  p50 ${ms(r.p50Ms)}  p95 ${ms(r.p95Ms)}`,
    ),
  ];
  return [
    `${s.chains} chains (${s.query}): ${s.asked} approvals asked, ${s.decided} decided, ${s.timedOut} timed out, ${s.slaBreaches} SLA breaches, ${s.escalations} escalations, ${s.reminders} reminders`,
    ...times('time to decision by team', s.byTeam),
    ...times('by approver', s.byApprover),
    ...times('by tool', s.byTool),
    `waiting now: ${AGE_BUCKETS.map((b) => `${b} ${s.pendingByAge[b]}`).join(', ')}; overdue ${s.overdue}`,
  ];
}

function timesBy(decided: readonly Decided[], key: (d: Decided) => string): DecisionTimes[] {
  const groups = new Map<string, number[]>();
  for (const d of decided) groups.set(key(d), [...(groups.get(key(d)) ?? []), d.ms]);
  return [...groups]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, values]) => ({
      key: k,
      decided: values.length,
      ...defined('p50Ms', quantile(values, 0.5)),
      ...defined('p95Ms', quantile(values, 0.95)),
    }));
}

function defined<K extends string>(k: K, v: number | undefined): Partial<Record<K, number>> {
  return v === undefined ? {} : ({ [k]: Math.round(v) } as Record<K, number>);
}

function isTool(v: unknown): v is { name: string } {
  return typeof v === 'object' && v !== null && typeof (v as { name?: unknown }).name === 'string';
}

function ms(v: number | undefined): string {
  return v === undefined ? '-' : v < 10_000 ? `${v} ms` : `${Math.round(v / 1000)} s`;
}
