/**
 * The audit events of a run's activities: a model turn (its tokens, cost and answer), a tool call
 * (where it ran, under which approval, with what result), a team snapshot; each with its execution
 * (status, attempts, latency, error), counted across retries and restarts after a lost worker.
 */
import { ActivityType } from '../common/messages';
import type { CallModelInput, ModelResponse } from '../common/model';
import type { RunToolInput, RunToolResult, TeamSpec } from '../common/team';
import { callCost, type Cost, currencyOf, priceOf } from '../common/economics/prices';
import { fromPayloads, type HistoryEvent } from '../payloads/read';
import { lostWorkerRestarts } from './history';
import type { Placement, Where } from './place';
import type { TurnReader } from './turns';
import type { AuditChain, AuditEvent, Execution } from './types';

/** Adds a new event to the chain, read from the history event at `where`. */
export type PushEvent = <E extends Record<string, unknown> & { kind: string }>(where: Where, event: E) => E & Where;

const ms = (where: Where) => Date.parse(where.at);

type ExecutedEvent = Extract<AuditEvent, { execution?: Execution }>;

interface Scheduled {
  name: string;
  input: unknown;
  where: Where;
  event?: ExecutedEvent;
  /** Attempts of the call's earlier starts, when this start is a restart after a lost worker. */
  earlierAttempts?: number;
}

/** A turn's cost at its price in the snapshot: the price the call carried, else the snapshot's (chains with economics only). */
function turnCost(input: CallModelInput, r: ModelResponse, team: TeamSpec | undefined): { cost?: Cost } {
  const prices = team?.economics?.prices;
  if (!input.price && !team?.economics) return {};
  return { cost: callCost(input.price ?? priceOf(prices, input.model), r.usage, currencyOf(prices)) };
}

/** Reads one run's activity events into the chain's events. */
export class ActivityReader {
  private readonly scheduled = new Map<string, Scheduled>();
  /** Restarts after a lost worker or a team refusal: the scheduled event id of each, and of the start it repeats. */
  private readonly restarts: Map<string, string>;

  constructor(
    private readonly chain: AuditChain,
    private readonly turns: TurnReader,
    private readonly placement: Placement,
    private readonly push: PushEvent,
    events: HistoryEvent[],
  ) {
    this.restarts = lostWorkerRestarts(events, true);
  }

  /** Reads `e` when it is an activity's event (scheduled, started, completed, failed, timed out, cancelled); says whether it was one. */
  read(e: HistoryEvent, where: Where): boolean {
    if (e.activityTaskScheduledEventAttributes) this.onScheduled(e, where);
    else if (e.activityTaskStartedEventAttributes) {
      const s = this.scheduled.get(String(e.activityTaskStartedEventAttributes.scheduledEventId));
      if (s?.event?.execution)
        Object.assign(s.event.execution, {
          status: 'running',
          attempts: (s.earlierAttempts ?? 0) + (e.activityTaskStartedEventAttributes.attempt ?? 1),
        });
    } else if (e.activityTaskCompletedEventAttributes) {
      const c = e.activityTaskCompletedEventAttributes;
      this.onCompleted(String(c.scheduledEventId), fromPayloads(c.result), where);
    } else if (e.activityTaskFailedEventAttributes) {
      const f = e.activityTaskFailedEventAttributes;
      this.onEnded(
        String(f.scheduledEventId),
        'failed',
        where,
        f.failure?.cause?.message ?? f.failure?.message ?? 'failed',
      );
    } else if (e.activityTaskTimedOutEventAttributes) {
      const f = e.activityTaskTimedOutEventAttributes;
      this.onEnded(String(f.scheduledEventId), 'timed_out', where, f.failure?.message ?? 'timed out');
    } else if (e.activityTaskCanceledEventAttributes) {
      this.onEnded(String(e.activityTaskCanceledEventAttributes.scheduledEventId), 'cancelled', where, 'cancelled');
    } else return false;
    return true;
  }

  private onScheduled(e: HistoryEvent, where: Where): void {
    if (this.onRestart(e)) return;
    const s = e.activityTaskScheduledEventAttributes!;
    const name = s.activityType?.name ?? '';
    const input = fromPayloads(s.input);
    const entry: Scheduled = { name, input, where };
    const execution: Execution = { status: 'scheduled', attempts: 0 };
    if (name === ActivityType.CALL_MODEL) {
      const i = input as CallModelInput;
      this.turns.modelCalled(i, where);
      entry.event = this.push(where, {
        kind: 'model_turn' as const,
        agent: i.agentId,
        model: i.model.model,
        execution,
      });
    } else if (name === ActivityType.RUN_TOOL) {
      const i = input as RunToolInput;
      const [asked, approval] = [this.turns.toolScheduled(i.agentId, i.call), this.turns.ranUnder(i.agentId, i.call)];
      if (asked) {
        // The call happens now (after its approval, when it waited for one), not when the model asked for it.
        entry.event = this.placement.place(asked, where);
        asked.execution = execution;
        // An approver may have edited the call: the audit shows what ran, beside what the model asked for.
        if (i.call.arguments !== asked.arguments)
          Object.assign(asked, { requestedArguments: asked.arguments, arguments: i.call.arguments });
        if (approval) asked.approval = approval;
      } else {
        entry.event = this.push(where, {
          kind: 'tool_call' as const,
          agent: i.agentId,
          tool: i.call.name,
          arguments: i.call.arguments,
          answeredBy: 'tool' as const,
          execution,
          ...(approval ? { approval } : {}),
        });
      }
    } else if (name === ActivityType.LOAD_TEAM) {
      entry.event = this.push(where, { kind: 'team_snapshot' as const, agents: [] as string[], execution });
    }
    this.scheduled.set(String(e.eventId), entry);
  }

  /** A call started again after a lost worker (counted) or a refusal for its team (it never ran): its event goes on. */
  private onRestart(e: HistoryEvent): boolean {
    const first = this.scheduled.get(this.restarts.get(String(e.eventId)) ?? '');
    const execution = first?.event?.execution;
    if (!first || !execution) return false;
    delete execution.error;
    const lost =
      fromPayloads<{ lostWorker?: unknown }>(e.activityTaskScheduledEventAttributes!.input)?.lostWorker !== undefined;
    Object.assign(execution, { status: 'scheduled' }, lost && { lostWorkers: (execution.lostWorkers ?? 0) + 1 });
    this.scheduled.set(String(e.eventId), { ...first, earlierAttempts: execution.attempts });
    return true;
  }

  private onCompleted(id: string, result: unknown, where: Where): void {
    const s = this.scheduled.get(id);
    const ev = s?.event;
    if (!s || !ev) return;
    Object.assign(ev.execution!, {
      status: 'completed',
      latencyMs: ms(where) - ms(s.where),
      attempts: Math.max(1, ev.execution!.attempts),
    });
    if (ev.kind === 'model_turn') {
      const r = result as ModelResponse;
      const i = s.input as CallModelInput;
      Object.assign(ev, {
        inputTokens: r.usage.inputTokens,
        outputTokens: r.usage.outputTokens,
        ...(r.usage.cachedInputTokens !== undefined ? { cachedInputTokens: r.usage.cachedInputTokens } : {}),
        ...turnCost(i, r, this.chain.team),
        content: r.content,
        toolCalls: r.toolCalls.map((c) => ({ name: c.name, arguments: c.arguments })),
      });
      // The calls of the answer are asked for now, when the model answered.
      this.turns.answered(ev.agent, r.toolCalls, {
        ...where,
        given: i.messages.length,
        tools: (i.tools ?? []).map((t) => t.name),
      });
    } else if (ev.kind === 'tool_call') {
      const r = result as RunToolResult;
      Object.assign(ev, { ok: r.ok, result: r.content, resultEventId: where.eventId });
    } else if (ev.kind === 'team_snapshot') {
      this.chain.team = result as TeamSpec;
      ev.agents = Object.keys(this.chain.team.agents);
      if (this.chain.team.version) ev.team = this.chain.team.version.id;
    }
  }

  private onEnded(id: string, status: Execution['status'], where: Where, error: string): void {
    const s = this.scheduled.get(id);
    if (s?.event?.execution)
      Object.assign(s.event.execution, {
        status,
        error,
        latencyMs: ms(where) - ms(s.where),
        attempts: Math.max(1, s.event.execution.attempts),
      });
  }
}
