/**
 * A chain as an eval reads it from history: its audit (route, outcome, approvals), every model,
 * tool, summary and routing call with its input and answer, its specialists' chains too, and a
 * summary for the report. Recorded chains and candidate chains are read the same way.
 */
import fs from 'node:fs';
import type { Client } from '@temporalio/client';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { buildAudit, type AuditChain } from '../audit/chain';
import { fetchChainRuns } from '../audit/fetch';
import { activityName, lostWorkerRestarts, withLocalActivities } from '../audit/history';
import type { RunHistory } from '../audit/types';
import { clipText } from '../common/limits';
import { ActivityType } from '../common/messages';
import type { CallModelInput, ModelResponse } from '../common/model';
import type { HandoffRunInput } from '../common/run';
import { decodeHistory } from '../payloads/history';
import { fromPayloads } from '../payloads/read';
import type { ChainOutcome, ChainSummary, Spend } from '../common/eval/types';

/** One activity a chain ran to its end: its type, input and answer, in the chain it ran in. */
export interface RecordedActivity {
  chain: string;
  type: string;
  input: unknown;
  result: unknown;
}

/** A chain and its specialists' chains, as history tells them. */
export interface ChainRecord {
  workflowId: string;
  /** The first run's input (without a continued run's carried state). */
  input?: HandoffRunInput;
  audit: AuditChain;
  /** Completed activities, the chain's own first (in history order), then each specialist's. */
  activities: RecordedActivity[];
}

/** Activities that ask a model. */
const MODEL_ACTIVITIES: readonly string[] = [
  ActivityType.CALL_MODEL,
  ActivityType.SUMMARIZE_HANDOFF,
  ActivityType.ROUTE_SPECIALIST,
];

/** Most specialists' chains read under one chain (a runaway fan-out is read in part). */
const MAX_CHILDREN = 100;

/** A chain on the server, its specialists' chains included unless `children` is false. */
export async function chainFromServer(
  client: Client,
  workflowId: string,
  options: { children?: boolean } = {},
): Promise<ChainRecord> {
  const { runs } = await fetchChainRuns(client, workflowId);
  const record = fromRuns(workflowId, runs);
  if (options.children === false) return record;
  const children = [
    ...new Set(record.audit.events.flatMap((e) => (e.kind === 'delegation' ? [e.childWorkflowId] : []))),
  ].slice(0, MAX_CHILDREN);
  const found = await Promise.all(children.map((id) => chainFromServer(client, id).catch(() => undefined)));
  const kids = found.filter((c): c is ChainRecord => c !== undefined);
  return {
    ...record,
    audit: { ...record.audit, ...(kids.length > 0 ? { children: kids.map((k) => k.audit) } : {}) },
    activities: [...record.activities, ...kids.flatMap((k) => k.activities)],
  };
}

/**
 * A chain from a history file (Temporal's JSON, as `temporal workflow show --output json` writes
 * it), its payloads decoded with `client`'s codecs. One run: its specialists' chains are not in it.
 */
export async function chainFromFile(client: Client, file: string): Promise<ChainRecord> {
  const { workflowId, ...json } = JSON.parse(fs.readFileSync(file, 'utf8')) as { workflowId?: unknown };
  const history = await decodeHistory(historyFromJSON(json), client.options.loadedDataConverter.payloadCodecs);
  const id = typeof workflowId === 'string' ? workflowId : file;
  return fromRuns(id, [{ runId: 'recorded', events: history.events ?? [] }]);
}

function fromRuns(workflowId: string, runs: RunHistory[]): ChainRecord {
  const audit = buildAudit(workflowId, runs);
  const started = runs[0]?.events[0]?.workflowExecutionStartedEventAttributes;
  const raw = fromPayloads<HandoffRunInput>(started?.input);
  const input = raw ? withoutResume(raw) : undefined;
  return {
    workflowId,
    ...(input ? { input } : {}),
    audit,
    activities: runs.flatMap((r) => completedActivities(workflowId, r.events)),
  };
}

function withoutResume(input: HandoffRunInput): HandoffRunInput {
  const { resume: _carried, ...rest } = input;
  return rest;
}

/** Every activity of a run that completed, with its input and result; a start a lost worker ended counts once. */
function completedActivities(chain: string, recorded: RunHistory['events']): RecordedActivity[] {
  const events = withLocalActivities(recorded);
  const lost = new Set(lostWorkerRestarts(events).values());
  const scheduled = new Map<string, { type: string; input: unknown }>();
  const done: RecordedActivity[] = [];
  for (const e of events) {
    const s = e.activityTaskScheduledEventAttributes;
    if (s && !lost.has(String(e.eventId)))
      scheduled.set(String(e.eventId), { type: activityName(e) ?? '', input: fromPayloads(s.input) });
    const c = e.activityTaskCompletedEventAttributes;
    const call = c ? scheduled.get(String(c.scheduledEventId)) : undefined;
    if (c && call) done.push({ chain, type: call.type, input: call.input, result: fromPayloads(c.result) });
  }
  return done;
}

/** The model calls of a record, in order. */
export function modelCalls(record: ChainRecord): { chain: string; input: CallModelInput; response: ModelResponse }[] {
  return record.activities
    .filter((a) => a.type === ActivityType.CALL_MODEL)
    .map((a) => ({ chain: a.chain, input: a.input as CallModelInput, response: a.result as ModelResponse }));
}

/** The agents a chain went through, its first agent included. */
export function routeOf(audit: AuditChain): string[] {
  const first = audit.input?.agent;
  return [...(first ? [first] : []), ...audit.handoffs.map((h) => h.to)];
}

/** How a chain ended. */
export function outcomeOf(audit: AuditChain): ChainOutcome {
  const status = audit.status === 'continued_as_new' ? 'running' : audit.status;
  return {
    status,
    ...(audit.failure?.type ? { error: audit.failure.type } : {}),
    ...(audit.failure ? { message: clipText(audit.failure.message, 300) } : {}),
  };
}

/** What the model calls of `activities` for which `counts` holds used. Cost only when every call's usage carries one. */
export function spendOf(activities: RecordedActivity[], counts: (a: RecordedActivity) => boolean = () => true): Spend {
  const spend: Spend = { modelCalls: 0, inputTokens: 0, outputTokens: 0 };
  let cost: number | undefined = 0;
  for (const a of activities) {
    if (!MODEL_ACTIVITIES.includes(a.type) || !counts(a)) continue;
    const usage = (a.result as { usage?: { inputTokens?: number; outputTokens?: number; cost?: unknown } } | undefined)
      ?.usage;
    spend.modelCalls += 1;
    spend.inputTokens += usage?.inputTokens ?? 0;
    spend.outputTokens += usage?.outputTokens ?? 0;
    // A model's usage carries its cost only where the deployment prices its models.
    cost = cost !== undefined && typeof usage?.cost === 'number' ? cost + usage.cost : undefined;
  }
  return spend.modelCalls > 0 && cost !== undefined ? { ...spend, cost } : spend;
}

/** A record as a case report shows it; `counts` picks the model calls that cost something. */
export function summarize(record: ChainRecord, counts?: (a: RecordedActivity) => boolean): ChainSummary {
  const { audit } = record;
  const output = audit.result?.output;
  const started = audit.startedAt ? Date.parse(audit.startedAt) : undefined;
  const closed = audit.closedAt ? Date.parse(audit.closedAt) : undefined;
  return {
    workflowId: record.workflowId,
    ...(audit.team?.version ? { team: audit.team.version.id } : {}),
    route: routeOf(audit),
    outcome: outcomeOf(audit),
    ...(audit.result ? { finalAgent: audit.result.finalAgent } : {}),
    ...(output !== undefined
      ? { output: clipText(typeof output === 'string' ? output : JSON.stringify(output), 500) }
      : {}),
    usage: spendOf(record.activities, counts),
    ...(started !== undefined && closed !== undefined ? { durationMs: closed - started } : {}),
  };
}
