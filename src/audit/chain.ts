/**
 * The audit chain: a run rebuilt from its workflow history alone (schema `baton.audit/v1`). Every
 * event names the history event it was read from (`runId`, `eventId`) and carries its time (`at`),
 * and the events are listed in history order: a tool call that waited for approval shows after
 * the approval was asked and decided, where it ran.
 */
import type { ApprovalRecord, PendingApproval } from '../common/approvals';
import { ActivityType, TEAM_MEMO } from '../common/messages';
import type { CallModelInput, ModelResponse } from '../common/model';
import type { HandoffRunInput, RecordHandoffInput } from '../common/run';
import type { RunToolInput, RunToolResult, TeamSpec } from '../common/team';
import { callCost, type Cost, currencyOf, priceOf } from '../common/economics/prices';
import { fromOutsidePayloads, fromPayloads, type HistoryEvent } from '../payloads/read';
import { childEnd, runEnd } from './ending';
import { causeName, isRoutine } from './taskFailures';
import {
  lostWorkerRestarts,
  recordedApprovalEvent,
  recordedHandoff,
  recordedStartInput,
  withLocalActivities,
} from './history';
import { liveRecordOf } from './live';
import { Placement, whereOf, type Where } from './place';
import { redactAudit } from './redact';
import { TurnReader } from './turns';
import { AUDIT_SCHEMA, type AuditChain, type AuditEvent, type Execution, type RunHistory } from './types';

export { AUDIT_SCHEMA, HandoffRequestOutcome } from './types';
export type {
  AnsweredBy,
  AuditChain,
  AuditEvent,
  AuditStatus,
  Execution,
  HandoffRequestedEvent,
  ModelTurnEvent,
  RunHistory,
  ToolCallEvent,
} from './types';

/** Rebuild the chain from the histories of its runs, oldest first, with its sensitive tool arguments and results redacted. */
export function buildAudit(workflowId: string, runs: RunHistory[]): AuditChain {
  const chain: AuditChain = {
    schema: AUDIT_SCHEMA,
    workflowId,
    runIds: runs.map((r) => r.runId),
    status: 'running',
    events: [],
    handoffs: [],
    lineage: [],
  };
  const placement = new Placement();
  const turns = new TurnReader({
    add: (e, where) => chain.events.push(placement.place(e, where)),
    move: (e, where) => placement.place(e, where),
    team: () => chain.team,
  });
  for (const run of runs) new RunReader(chain, run.runId, turns, placement).read(withLocalActivities(run.events));
  chain.events = placement.sorted(chain.events);
  // The team's sensitive tool arguments and results never leave the audit (history keeps them).
  return redactAudit(chain);
}

const ms = (where: Where) => Date.parse(where.at);

type ExecutedEvent = Extract<AuditEvent, { execution?: Execution }>;
type Delegation = Extract<AuditEvent, { kind: 'delegation' }>;

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

/** Reads one run's events into the chain. */
class RunReader {
  private readonly scheduled = new Map<string, Scheduled>();
  /** Restarts after a lost worker or a team refusal: the scheduled event id of each, and of the start it repeats. */
  private restarts = new Map<string, string>();
  private readonly children = new Map<string, Delegation>();

  constructor(
    private readonly chain: AuditChain,
    private readonly runId: string,
    private readonly turns: TurnReader,
    private readonly placement: Placement,
  ) {}

  read(events: HistoryEvent[]): void {
    this.restarts = lostWorkerRestarts(events, true);
    for (const e of events) this.onEvent(e);
    // The last workflow task failed, and the tasks after it (retries in progress) did not finish.
    const last = [...events]
      .reverse()
      .find(
        (e) =>
          !e.workflowTaskScheduledEventAttributes &&
          !e.workflowTaskStartedEventAttributes &&
          !e.workflowTaskTimedOutEventAttributes,
      );
    const failed = last?.workflowTaskFailedEventAttributes;
    if (last && failed && !failed.baseRunId && !isRoutine(failed.cause) && this.chain.status === 'running') {
      this.chain.stuck = {
        since: whereOf(last, this.runId).at,
        error: failed.failure?.message ?? 'workflow task failed',
      };
    } else delete this.chain.stuck;
  }

  /** A new event, read from the history event at `where`. */
  private push<E extends Record<string, unknown> & { kind: string }>(where: Where, event: E): E & Where {
    const placed = this.placement.place(event, where);
    this.chain.events.push(placed as unknown as AuditEvent);
    return placed;
  }

  private onEvent(e: HistoryEvent): void {
    const where = whereOf(e, this.runId);
    const handoff = recordedHandoff(e);
    if (handoff) this.onHandoff(handoff, where);
    if (e.workflowExecutionStartedEventAttributes)
      this.onStarted(recordedStartInput(e.workflowExecutionStartedEventAttributes.input), where);
    else if (e.activityTaskScheduledEventAttributes) this.onScheduled(e, where);
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
    } else if (e.workflowPropertiesModifiedEventAttributes) this.onApprovalEvent(e, where);
    else if (e.startChildWorkflowExecutionInitiatedEventAttributes) this.onChildStarted(e, where);
    else if (childEnd(e)) this.onChildEnded(e, where);
    else if (e.workflowTaskFailedEventAttributes) this.onTaskFailed(e, where);
    else if (e.workflowExecutionSignaledEventAttributes) {
      const s = e.workflowExecutionSignaledEventAttributes;
      this.push(where, { kind: 'signal', name: s.signalName ?? '', input: fromOutsidePayloads(s.input) });
    } else if (e.workflowExecutionUpdateAcceptedEventAttributes) {
      const req = e.workflowExecutionUpdateAcceptedEventAttributes.acceptedRequest?.input;
      this.push(where, { kind: 'update', name: req?.name ?? '', input: fromOutsidePayloads(req?.args) });
    } else this.onClosed(e, where);
  }

  private onStarted(input: HandoffRunInput | undefined, where: Where): void {
    const origin = input?.resume?.replayOf; // A replay that resumed from rebuilt state: its chain is the one it carries (the run it replays may have gone past it).
    if (origin) {
      this.chain.handoffs.splice(0, this.chain.handoffs.length, ...input!.resume!.chain);
      this.chain.lineage.push({
        runId: this.runId,
        replayedFrom: origin.runId,
        reason: `baton replay from ${origin.from}`,
        at: where.at,
      });
      Object.assign(this.chain, { team: input!.resume!.team, status: 'running' });
      for (const ended of ['failure', 'closedAt', 'result'] as const) delete this.chain[ended];
    }
    if (input?.resume) this.chain.team ??= input.resume.team;
    this.chain.startedAt ??= where.at;
    if (!input) return;
    const { resume, ...plain } = input;
    this.chain.input ??= plain;
    // The link without the token its caller checks its reports by.
    if (input.parent)
      this.chain.parent ??= {
        workflowId: input.parent.workflowId,
        rootWorkflowId: input.parent.rootWorkflowId,
        depth: input.parent.depth,
        ...(input.parent.team ? { team: input.parent.team } : {}),
      };
    this.push(where, { kind: 'run_started', input: plain });
    if (origin)
      this.push(where, { kind: 'replayed_from', baseRunId: origin.runId, reason: `baton replay from ${origin.from}` });
    if (resume) this.turns.resumed(resume, where, origin !== undefined);
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

  private onChildStarted(e: HistoryEvent, where: Where): void {
    const init = e.startChildWorkflowExecutionInitiatedEventAttributes!;
    const input = fromPayloads<HandoffRunInput>(init.input);
    const from = [...this.chain.events].reverse().find((x) => x.kind === 'model_turn');
    const event = this.push(where, {
      kind: 'delegation' as const,
      ...(from?.kind === 'model_turn' ? { from: from.agent } : {}),
      to: input?.agent ?? '?',
      childWorkflowId: init.workflowId ?? '',
      task: input?.input ?? '',
      outcome: 'running' as Delegation['outcome'],
    });
    this.children.set(String(e.eventId), event as unknown as Delegation);
  }

  /** A specialist's chain ended: the delegation records how (its summary), and its own event says when. */
  private onChildEnded(e: HistoryEvent, where: Where): void {
    const end = childEnd(e)!;
    const started = this.children.get(end.initiatedId);
    if (!started) return;
    const how = {
      outcome: end.outcome,
      ...(end.outcome === 'completed' ? { output: end.output } : { error: end.error }),
    };
    Object.assign(started, how);
    this.push(where, {
      kind: 'delegation_ended',
      ...(started.from ? { from: started.from } : {}),
      to: started.to,
      childWorkflowId: started.childWorkflowId,
      ...how,
    });
  }

  private onHandoff(entry: RecordHandoffInput, where: Where): void {
    this.turns.handedOff(entry, where);
    this.chain.handoffs.push(entry.handoff);
    this.push(where, {
      kind: 'handoff',
      index: entry.index,
      ...entry.handoff,
      ...(entry.transfer ? { transfer: entry.transfer } : {}),
    });
  }

  private onApprovalEvent(e: HistoryEvent, where: Where): void {
    const team = e.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields?.[TEAM_MEMO];
    const change = team
      ? fromPayloads<{
          change?: { from: string; to: string; by: 'migration' | 'upgrade'; beforeTurn: number; deployment?: string };
        }>({ payloads: [team] })?.change
      : undefined;
    if (change) this.push(where, { kind: 'team_changed', ...change });
    const live = liveRecordOf(e);
    if (live) this.push(where, { kind: 'live', record: live });
    const memo = recordedApprovalEvent(e);
    if (!memo) return;
    const { type, ...rest } = memo;
    if (type === 'approval_requested') this.turns.approvalRequested(rest as unknown as PendingApproval);
    if (type === 'approval_decided') this.turns.approvalDecided(rest as unknown as ApprovalRecord);
    // A control's own `at` is workflow time; the event's place is where history has it.
    const { at: _at, ...fields } = rest;
    this.push(where, { ...fields, kind: type });
  }

  private onTaskFailed(e: HistoryEvent, where: Where): void {
    const f = e.workflowTaskFailedEventAttributes!;
    if (f.baseRunId) {
      const reason = f.failure?.message ?? 'reset';
      this.chain.lineage.push({ runId: this.runId, replayedFrom: f.baseRunId, reason, at: where.at });
      this.push(where, { kind: 'replayed_from', baseRunId: f.baseRunId, reason });
      return this.turns.replayed();
    }
    if (isRoutine(f.cause)) return;
    const cause = f.cause !== undefined && f.cause !== null ? causeName(f.cause) : undefined;
    this.push(where, {
      kind: 'workflow_task_failed',
      ...(cause ? { cause } : {}),
      message: f.failure?.message ?? 'workflow task failed',
    });
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

  private onClosed(e: HistoryEvent, where: Where): void {
    const end = runEnd(e);
    if (!end) return;
    if (end.failure) this.chain.failure = end.failure;
    if (end.result) this.chain.result = end.result;
    this.chain.status = end.status;
    this.chain.closedAt = where.at;
    if (end.status !== 'continued_as_new') this.turns.runEnded(this.chain.failure);
    if (end.event) this.push(where, end.event);
  }
}
