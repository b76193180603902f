/**
 * Counting what chains cost in Temporal Cloud actions on a real dev server: the actions their
 * histories record (`countActions`) and those only the server sees (heartbeats, queries), read from
 * the server's own `action` metric (`temporal server start-dev --metrics-port`). Shared by
 * test/integration/actions.test.ts and bench/actions.ts.
 */
import { defineAgent, openai, Team, type Agent } from '../../src';
import { BatonStatusAttribute } from '../../src/workflow';
import { countActions, type HistoryActions } from '../../src/audit/actions';
import { Baton } from '../../src/client/baton';
import type { DevServer } from '../../src/devserver/server';
import { createWorker } from '../../src/worker';
import { Registry } from 'prom-client';
import { reply, type FakeReply, type startOpenAIServer } from './openaiServer';

type Fake = Awaited<ReturnType<typeof startOpenAIServer>>;

/** The server's `action` counter of the `default` namespace, by `action_type` (e.g. `grpc_RecordActivityTaskHeartbeat`). */
export async function serverActions(server: DevServer): Promise<Record<string, number>> {
  if (!server.metricsAddress) throw new Error('start the dev server with a metricsPort to read its action metric');
  const counts: Record<string, number> = {};
  for (const line of (await (await fetch(server.metricsAddress)).text()).split('\n')) {
    const m = /^action\{action_type="([^"]+)",namespace="default"[^}]*\} (\S+)$/.exec(line);
    if (m) counts[m[1]!] = (counts[m[1]!] ?? 0) + Number(m[2]);
  }
  return counts;
}

/** A streamed answer of 100 chunks lasting `ms` from the request to its end: text, then a handoff when `to` is given. */
export function streamedReply(ms: number, to?: string): FakeReply {
  const text = 'word '.repeat(80);
  const r = to ? reply.toolCalls([{ name: 'handoff', arguments: { to, message: `over to ${to}` } }]) : reply.text(text);
  if (to) (r.body as { choices: { message: { content: string | null } }[] }).choices[0]!.message.content = text;
  return { ...r, streamMs: ms };
}

/** What one chain cost: its history's actions, and the heartbeats and queries the server counted while it ran. */
export interface ChainActions {
  history: HistoryActions;
  heartbeats: number;
  /** What the worker's `baton_temporal_actions_total` counted for the chain. */
  workerCounted: number;
  queries: number;
  /** Updates the server counted (accepted and rejected). */
  updates: number;
  total: number;
  /** How long each model call took, from its start to its completion in history (ms). */
  callMs: number[];
}

/** Agents c0 … cN on the fake OpenAI server, each handing to the next, each handoff needing alice's approval. */
export function approvedChainTeam(fake: Fake, handoffs: number): Team {
  const agents: Agent[] = [];
  for (let i = 0; i <= handoffs; i++) {
    agents.push(
      defineAgent({
        id: `c${i}`,
        instructions: `You are c${i}.`,
        model: openai('gpt-fake', { baseURL: fake.url }),
        ...(i < handoffs ? { handoffs: [`c${i + 1}`] } : {}),
        ...(i > 0 ? { approval: { approvers: ['alice'] } } : {}),
      }),
    );
  }
  return new Team(agents);
}

/**
 * Run one chain of `handoffs` approved handoffs, each model call a streamed answer of `callMs`,
 * approving each handoff as it waits (found by the run's search attributes and memo, as an inbox
 * finds it), and count its actions. Chains are counted one at a time: heartbeats and queries are
 * the namespace's.
 */
export async function approvedChainActions(
  env: DevServer,
  fake: Fake,
  options: { handoffs: number; callMs: number; heartbeatTimeout?: string; taskQueue: string },
): Promise<ChainActions> {
  const { handoffs, callMs, taskQueue } = options;
  for (let i = 0; i <= handoffs; i++) fake.replies.push(streamedReply(callMs, i < handoffs ? `c${i + 1}` : undefined));
  const registry = new Registry();
  const worker = await createWorker({
    team: approvedChainTeam(fake, handoffs),
    connection: env.nativeConnection,
    taskQueue,
    teamRegistry: false,
    metrics: { registry },
  });
  return worker.runUntil(async () => {
    const baton = new Baton({ client: env.client, taskQueue });
    const before = await serverActions(env);
    const run = await baton.start(
      'c0',
      'go',
      options.heartbeatTimeout ? { heartbeatTimeout: options.heartbeatTimeout } : {},
    );
    for (let approved = 0; approved < handoffs;) {
      const d = await run.handle.describe();
      if (d.status.name !== 'RUNNING') break;
      if (d.typedSearchAttributes.get(BatonStatusAttribute) === 'awaiting_approval') {
        await baton.approve(run.workflowId, { approver: 'alice' });
        approved++;
      } else await new Promise((r) => setTimeout(r, 100));
    }
    await run.result();
    const after = await serverActions(env);
    const delta = (type: string) => (after[type] ?? 0) - (before[type] ?? 0);
    const events = (await run.handle.fetchHistory()).events ?? [];
    const history = countActions(events);
    const at = (e: (typeof events)[number]) =>
      Number(e.eventTime?.seconds ?? 0) * 1000 + (e.eventTime?.nanos ?? 0) / 1e6;
    const started = new Map(
      events
        .filter((e) => e.activityTaskStartedEventAttributes)
        .map((e) => [String(e.activityTaskStartedEventAttributes!.scheduledEventId), at(e)]),
    );
    const modelCalls = new Set(
      events
        .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel')
        .map((e) => String(e.eventId)),
    );
    const callMs = events.flatMap((e) => {
      const id = String(e.activityTaskCompletedEventAttributes?.scheduledEventId);
      return e.activityTaskCompletedEventAttributes && modelCalls.has(id) ? [Math.round(at(e) - started.get(id)!)] : [];
    });
    const heartbeats = delta('grpc_RecordActivityTaskHeartbeat');
    const queries = delta('grpc_QueryWorkflow');
    const updates =
      delta('message_UpdateWorkflowExecution_Acceptance') + delta('message_UpdateWorkflowExecution_Rejection');
    // Accepted updates are in the history already; a rejected one is not.
    const total = history.total + heartbeats + queries + Math.max(0, updates - history.updates);
    // The worker's own count: the last activation's facts reach its metrics just after the run completes.
    const workerCounted = async () =>
      ((await registry.getSingleMetric('baton_temporal_actions_total')?.get())?.values ?? []).reduce(
        (sum, v) => sum + v.value,
        0,
      );
    const deadline = Date.now() + 5_000;
    let counted = await workerCounted();
    while (counted < total && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      counted = await workerCounted();
    }
    return { history, heartbeats, queries, updates, callMs, total, workerCounted: counted };
  });
}
