/**
 * A run's progress as it happens, read from its history by long-polling (no query loops): what
 * each agent is doing, every handoff, approval, delegation and the end, with the work of the
 * specialists it delegates to. Follows continue-as-new.
 */
import { WorkflowNotFoundError, type WorkflowClient } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { activityName, recordedApprovalEvent, recordedHandoff, withLocalActivities } from '../audit/history';
import type { ApprovalRecord, PendingApproval } from '../common/approvals';
import { childEnd } from '../audit/ending';
import type { ControlEvent } from '../common/controls';
import { errorFromFailure } from '../common/errorTypes';
import { ActivityType } from '../common/messages';
import type { CallModelInput, LocalModelCall, ModelResponse } from '../common/model';
import { callCost, currencyOf, type ModelPrice, priceOf } from '../common/economics/prices';
import type { HandoffRunInput, HandoffRunResult } from '../common/run';
import {
  redactDecisionRecord,
  redactPendingApproval,
  TeamRedaction,
  type SensitiveArguments,
  type ToolSensitivitySpec,
} from '../common/sensitive';
import type { RunToolInput, TeamSpec } from '../common/team';
import { decodeHistory } from '../payloads/history';
import { HistoryPages } from '../payloads/historyPages';
import { fromPayloads, type HistoryEvent } from '../payloads/read';
import type { RunEvent, RunEventBody } from './runEvent';

/** The kinds of event after which a run has nothing more to say. */
const FINAL = new Set<RunEvent['kind']>(['completed', 'failed', 'ended']);

/** Options of a run's events (`run.events()`). */
export interface RunEventsOptions {
  /**
   * Follow the chains of the specialists it delegates to: their events come as `specialist` events
   * between `delegation_started` and `delegation_ended`, in full before the chain's own later ones.
   * @default true
   */
  specialists?: boolean;
}

/**
 * Every event of the run `workflowId` (from run `runId`, else its latest run), then each new one as
 * it happens, until the chain ends. Each call reads the history from the start.
 */
export async function* runEvents(
  client: WorkflowClient,
  workflowId: string,
  runId?: string,
  options: RunEventsOptions = {},
): AsyncGenerator<RunEvent> {
  let execution = { workflowId, runId: runId ?? (await client.getHandle(workflowId).describe()).runId };
  let nextPageToken: Uint8Array | undefined;
  // A page of signals near Temporal's payload limit is too large to receive: asked for in smaller pages.
  const pages = new HistoryPages(client.workflowService);
  const codecs = client.options.loadedDataConverter.payloadCodecs;
  const seen: Seen = {
    calls: new Map(),
    team: new TeamRedaction(undefined),
    approvals: new Map(),
    children: new Map(),
    agent: '',
  };
  for (;;) {
    const asked = execution;
    const response = await pages.next({
      namespace: client.options.namespace,
      execution,
      nextPageToken,
      waitNewEvent: true,
      skipArchival: true,
    });
    if (response.history) await decodeHistory(response.history, codecs);
    for (const e of withLocalActivities(response.history?.events ?? [])) {
      const current = execution.runId;
      for (const event of mapEvent(e, seen)) {
        const out = { at: timeOf(e), runId: current, ...event } as RunEvent;
        yield out;
        if (FINAL.has(out.kind)) return;
        if (out.kind === 'delegation_started' && options.specialists !== false) {
          // The specialist's work, as it happens; this chain waits for its answer meanwhile.
          const child = e.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.runId ?? undefined;
          for await (const inner of specialistEvents(client, out.workflowId, child, options))
            yield { at: inner.at, runId: current, kind: 'specialist', workflowId: out.workflowId, event: inner };
        }
        if (out.kind === 'continued_as_new') {
          execution = { workflowId, runId: out.nextRunId };
          nextPageToken = undefined;
          seen.calls.clear();
        }
      }
    }
    // A page token is for the run it was read from, not the one a continue-as-new moved to.
    if (response.nextPageToken?.length && execution === asked) nextPageToken = response.nextPageToken;
  }
}

type Mapped = RunEventBody;

/** The events of a specialist's chain; nothing when it cannot be read (its history gone), as its end still shows in the chain that delegated. */
async function* specialistEvents(
  client: WorkflowClient,
  workflowId: string,
  runId: string | undefined,
  options: RunEventsOptions,
): AsyncGenerator<RunEvent> {
  try {
    yield* runEvents(client, workflowId, runId, options);
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
  }
}

/**
 * What reading a run's history so far has learned: open calls, the team's sensitive tools, which
 * tool each approval is about, the specialists started (by their initiating event), the agent working.
 */
interface Seen {
  calls: Map<
    string,
    {
      kind: 'model' | 'tool' | 'team';
      agent: string;
      tool?: string;
      call?: string;
      price?: ModelPrice;
      model?: CallModelInput['model'];
    }
  >;
  team: TeamRedaction;
  approvals: Map<string, ToolSensitivitySpec | undefined>;
  children: Map<string, { agent: string; to: string; workflowId: string; task: string }>;
  agent: string;
}

function mapEvent(e: HistoryEvent, seen: Seen): Mapped[] {
  const calls = seen.calls;
  const started = e.workflowExecutionStartedEventAttributes;
  // A run that continues a chain carries its team snapshot; a new chain records it with `loadTeam`.
  if (started) seen.team = new TeamRedaction(fromPayloads<HandoffRunInput>(started.input)?.resume?.team);
  const scheduled = e.activityTaskScheduledEventAttributes;
  if (scheduled) {
    const name = activityName(e);
    if (name === ActivityType.LOAD_TEAM) calls.set(String(e.eventId), { kind: 'team', agent: '' });
    if (name === ActivityType.CALL_MODEL) {
      const input = fromPayloads<CallModelInput>(scheduled.input);
      seen.agent = input?.agentId ?? '?';
      const call = input ? `${input.agentId}#${input.callIndex}` : undefined;
      calls.set(String(e.eventId), {
        kind: 'model',
        agent: input?.agentId ?? '?',
        ...(call ? { call } : {}),
        ...(input?.price ? { price: input.price } : {}),
        ...(input ? { model: input.model } : {}),
      });
      return [{ kind: 'model_call', agent: input?.agentId ?? '?', ...(call ? { call } : {}) }];
    }
    if (name === ActivityType.RUN_TOOL) {
      const input = fromPayloads<RunToolInput>(scheduled.input);
      calls.set(String(e.eventId), { kind: 'tool', agent: input?.agentId ?? '?', tool: input?.call.name ?? '?' });
      return [{ kind: 'tool_call', agent: input?.agentId ?? '?', tool: input?.call.name ?? '?' }];
    }
    return [];
  }
  const stopping = e.activityTaskCancelRequestedEventAttributes;
  const stopped = stopping ? calls.get(String(stopping.scheduledEventId)) : undefined;
  if (stopped?.kind === 'model')
    return [{ kind: 'model_stopped', agent: stopped.agent, ...(stopped.call ? { call: stopped.call } : {}) }];
  const completed = e.activityTaskCompletedEventAttributes;
  if (completed) {
    const call = calls.get(String(completed.scheduledEventId));
    if (call?.kind === 'model') {
      const answer = fromPayloads<ModelResponse | LocalModelCall>(completed.result);
      const response = answer && 'response' in answer ? answer.response : answer;
      return [modelAnswered(call, response, seen.team.team)];
    }
    if (call?.kind === 'tool') return [{ kind: 'tool_answered', agent: call.agent, tool: call.tool ?? '?' }];
    if (call?.kind === 'team') seen.team = new TeamRedaction(fromPayloads<TeamSpec>(completed.result));
    return [];
  }
  const handoff = recordedHandoff(e);
  if (handoff) return [{ kind: 'handoff', index: handoff.index, handoff: handoff.handoff }];
  const delegation = delegationEvent(e, seen);
  if (delegation) return [delegation];
  const approval = recordedApprovalEvent(e);
  if (approval) {
    const { type, ...fields } = approval;
    if (type === 'approval_requested')
      return [{ kind: 'approval_requested', approval: redactedApproval(fields as unknown as PendingApproval, seen) }];
    if (type === 'approval_decided') {
      const decision = fields as unknown as ApprovalRecord;
      const spec = seen.approvals.has(decision.handoffId)
        ? seen.approvals.get(decision.handoffId)
        : seen.team.of(undefined, decision.tool);
      return [{ kind: 'approval_decided', decision: redactDecisionRecord(decision, spec) }];
    }
    if (type === 'control') return [{ kind: 'control', control: controlEvent(fields) }];
    return [];
  }
  return closing(e);
}

/** A model's answer: its text, its usage, and its cost at the chain's prices when the chain has economics. */
function modelAnswered(
  call: { agent: string; call?: string; price?: ModelPrice; model?: CallModelInput['model'] },
  r: ModelResponse | undefined,
  team: TeamSpec | undefined,
): Mapped {
  const named = {
    kind: 'model_answered' as const,
    agent: call.agent,
    ...(call.call ? { call: call.call } : {}),
    ...(r?.content !== undefined ? { text: r.content } : {}),
  };
  if (!r?.usage) return named;
  const prices = team?.economics?.prices;
  const priced = call.price !== undefined || team?.economics !== undefined;
  const price = call.price ?? (call.model ? priceOf(prices, call.model) : undefined);
  return { ...named, usage: r.usage, ...(priced ? { cost: callCost(price, r.usage, currencyOf(prices)) } : {}) };
}

/** A specialist started (once its chain exists) or ended; `undefined` for other events. */
function delegationEvent(e: HistoryEvent, seen: Seen): Mapped | undefined {
  const initiated = e.startChildWorkflowExecutionInitiatedEventAttributes;
  if (initiated) {
    const input = fromPayloads<HandoffRunInput>(initiated.input);
    seen.children.set(String(e.eventId), {
      agent: seen.agent,
      to: input?.agent ?? '?',
      workflowId: initiated.workflowId ?? '',
      task: input?.input ?? '',
    });
    return undefined;
  }
  const started = e.childWorkflowExecutionStartedEventAttributes;
  const child = started ? seen.children.get(String(started.initiatedEventId)) : undefined;
  if (child) return { kind: 'delegation_started', ...child };
  const end = childEnd(e);
  const ended = end ? seen.children.get(end.initiatedId) : undefined;
  if (!end || !ended) return undefined;
  const { task: _task, ...who } = ended;
  return {
    kind: 'delegation_ended',
    ...who,
    outcome: end.outcome,
    ...(end.outcome === 'completed' ? { output: end.output } : { error: end.error }),
  };
}

/** A waiting approval as events show it: a tool call's sensitive arguments redacted, and which they are. */
function redactedApproval(p: PendingApproval, seen: Seen): PendingApproval & { sensitive?: SensitiveArguments } {
  if (!p.tool) return p;
  const spec = seen.team.of(p.from, p.tool.name);
  seen.approvals.set(p.handoffId, spec);
  if (!spec?.arguments) return p;
  return { ...redactPendingApproval(p, spec), sensitive: { arguments: spec.arguments, revealed: false } };
}

/** The memo's `{control: <kind>, at, ...fields}` as the {@link ControlEvent} it records. */
export function controlEvent(fields: Record<string, unknown>): ControlEvent {
  const { control, at: _at, ...rest } = fields;
  return { kind: control, ...rest } as ControlEvent;
}

function closing(e: HistoryEvent): Mapped[] {
  const done = e.workflowExecutionCompletedEventAttributes;
  if (done) return [{ kind: 'completed', result: fromPayloads<HandoffRunResult<unknown>>(done.result)! }];
  const failed = e.workflowExecutionFailedEventAttributes?.failure;
  if (failed) {
    const info = failed.applicationFailureInfo;
    const failure = ApplicationFailure.create({
      type: info?.type ?? undefined,
      message: failed.message ?? 'failed',
      details: (info?.details?.payloads ?? []).map((p) => fromPayloads({ payloads: [p] })),
    });
    return [{ kind: 'failed', error: errorFromFailure(failure) ?? new Error(failed.message ?? 'the run failed') }];
  }
  const next = e.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
  if (next) return [{ kind: 'continued_as_new', nextRunId: next }];
  if (e.workflowExecutionCanceledEventAttributes) return [{ kind: 'ended', status: 'cancelled' }];
  if (e.workflowExecutionTerminatedEventAttributes) return [{ kind: 'ended', status: 'terminated' }];
  if (e.workflowExecutionTimedOutEventAttributes) return [{ kind: 'ended', status: 'timed_out' }];
  return [];
}

function timeOf(e: HistoryEvent): string {
  const t = e.eventTime;
  return new Date(t ? Number(t.seconds?.toString() ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6) : 0).toISOString();
}
