/**
 * Chains as statistics read them: listed from visibility, read from history, and reduced to the
 * facts the figures count — outcome, handoffs, approvals and their rejections, guardrail trips,
 * tokens and cost, latency, and each agent's turn at the chain (its activation) with how it ended.
 */
import type { Client } from '@temporalio/client';
import { HandoffRequestOutcome } from '../../audit/chain';
import { UserError } from '../../common/errors';
import { type ChainRecord, chainFromServer, routeOf, spendOf } from '../chainRecord';
import { caseOfChain } from '../../common/eval/messages';

/** An agent's turn at a chain: from its start (or the handoff to it) to its handoff, answer or the chain's end. */
export interface Activation {
  agent: string;
  /** The edge that brought it (`from`), absent for the chain's first agent. */
  from?: string;
  /** `handoff`, `answer`, or how the chain ended while it worked (`failed`, `cancelled`, …). */
  ended: string;
  error?: string;
  durationMs?: number;
}

/** A handoff the model asked for, and how it ended. */
export interface EdgeRequest {
  from: string;
  to: string;
  outcome: string;
}

/** What statistics count of one chain. */
export interface ChainFacts {
  workflowId: string;
  /** `completed`, `failed`, `cancelled`, `terminated`, `timed_out` or `running`. */
  status: string;
  error?: string;
  route: string[];
  handoffs: number;
  approvalsAsked: number;
  approvalsRejected: number;
  /** Approvals asked and rejected, by the agent they are about (a handoff's target, a tool call's agent) and by edge. */
  approvals: { agent: string; edge?: string; rejected: boolean }[];
  guardrailTrips: number;
  tokens: number;
  cost?: number;
  latencyMs?: number;
  activations: Activation[];
  requests: EdgeRequest[];
}

/** The facts of a chain read from its history. */
export function factsOf(record: ChainRecord): ChainFacts {
  const { audit } = record;
  const status = audit.status === 'continued_as_new' ? 'running' : audit.status;
  const error = audit.failure?.type;
  const spend = spendOf(record.activities);
  const asked = new Map<string, { agent: string; edge?: string }>();
  const approvals: ChainFacts['approvals'] = [];
  let trips = 0;
  const requests: EdgeRequest[] = [];
  for (const e of audit.events) {
    if (e.kind === 'approval_requested')
      asked.set(e.handoffId, e.tool ? { agent: e.from } : { agent: e.to, edge: `${e.from} → ${e.to}` });
    else if (e.kind === 'approval_decided') {
      const a = asked.get(e.handoffId);
      if (a)
        approvals.push({
          ...a,
          rejected: e.outcome === 'rejected' || (e.outcome === 'timed_out' && e.onTimeout !== 'approve'),
        });
    } else if (e.kind === 'control' && e.control === 'guardrail_tripped') trips += 1;
    else if (
      e.kind === 'handoff_requested' &&
      e.outcome !== HandoffRequestOutcome.PENDING &&
      e.outcome !== HandoffRequestOutcome.AWAITING_APPROVAL
    )
      requests.push({ from: e.from, to: e.to, outcome: e.outcome });
  }
  const started = audit.startedAt ? Date.parse(audit.startedAt) : undefined;
  const closed = audit.closedAt && status !== 'running' ? Date.parse(audit.closedAt) : undefined;
  return {
    workflowId: record.workflowId,
    status,
    ...(error ? { error } : {}),
    route: routeOf(audit),
    handoffs: audit.handoffs.length,
    approvalsAsked: asked.size,
    approvalsRejected: approvals.filter((a) => a.rejected).length,
    approvals,
    guardrailTrips: trips,
    tokens: spend.inputTokens + spend.outputTokens,
    ...(spend.cost !== undefined ? { cost: spend.cost } : {}),
    ...(started !== undefined && closed !== undefined ? { latencyMs: closed - started } : {}),
    activations: activationsOf(record, status, error, started, closed),
    requests,
  };
}

function activationsOf(
  record: ChainRecord,
  status: string,
  error: string | undefined,
  started: number | undefined,
  closed: number | undefined,
): Activation[] {
  const { audit } = record;
  const first = audit.input?.agent;
  if (!first) return [];
  const turns = [
    { agent: first, at: started },
    ...audit.handoffs.map((h) => ({ agent: h.to, from: h.from, at: Date.parse(h.timestamp) })),
  ];
  return turns.map((t, i) => {
    const next = turns[i + 1];
    const end = next ? next.at : closed;
    const ended = next ? 'handoff' : status === 'completed' ? 'answer' : status;
    return {
      agent: t.agent,
      ...('from' in t && t.from ? { from: t.from } : {}),
      ended,
      ...(!next && error ? { error } : {}),
      ...(t.at !== undefined && end !== undefined ? { durationMs: end - t.at } : {}),
    };
  });
}

/**
 * The workflow ids of the chains `query` finds (a visibility query, ANDed with the chain
 * workflow type), each once (its latest run), newest first, at most `limit`. An eval's candidate
 * chains (`<eval>/case-<n>/chain…`) are no traffic and are left out.
 */
export async function listChains(client: Client, query: string, limit: number): Promise<string[]> {
  const ids = new Set<string>();
  try {
    for await (const wf of client.workflow.list({
      query: `WorkflowType = "handoffRun" AND ExecutionStatus != "ContinuedAsNew"${query.trim() ? ` AND (${query})` : ''}`,
    })) {
      if (caseOfChain(wf.workflowId)) continue;
      ids.add(wf.workflowId);
      if (ids.size >= limit) break;
    }
  } catch (err) {
    throw new UserError(`the visibility query ${JSON.stringify(query)} was refused: ${(err as Error).message}`);
  }
  return [...ids];
}

/** The facts of chains `ids`, read `concurrency` at a time; `children`: count specialists' calls in their callers' tokens. */
export async function readFacts(
  client: Client,
  ids: readonly string[],
  options: { children: boolean; concurrency?: number },
): Promise<ChainFacts[]> {
  const out: ChainFacts[] = new Array(ids.length);
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const i = next++;
      out[i] = factsOf(await chainFromServer(client, ids[i]!, { children: options.children }));
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency ?? 16, ids.length) }, worker));
  return out;
}
